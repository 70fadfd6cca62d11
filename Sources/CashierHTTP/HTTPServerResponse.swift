public import Cashier
import CashierWire
import Foundation

/// A response to send. Header values containing CR or LF are dropped, never sent.
public struct HTTPServerResponse: Sendable {
    public var status: Int { didSet { preparedCopy = nil } }
    public var headers: HTTPHeaders { didSet { preparedCopy = nil } }
    public var body: [UInt8] { didSet { preparedCopy = nil } }
    /// A file to send as the body instead of ``body``, read from disk as the client takes it (a
    /// large export never sits in memory). The server removes the file once it has opened it.
    public var bodyFile: String? { didSet { preparedCopy = nil } }
    /// A body written while it is sent, by a producer running in a task of its own (see
    /// ``stream(status:headers:_:)``), instead of ``body``.
    public var stream: (@Sendable (HTTPStreamWriter) async -> Void)? { didSet { preparedCopy = nil } }
    /// The server's own copy of this response, built once and sent as often as it is returned
    /// (``prepared()``); forgotten when the response changes.
    var preparedCopy: PreparedResponse?

    /// This response, built once by the server and sent as often as it is returned: for the
    /// same answer to many requests (a health check, "received" to a provider). Changing the
    /// copy afterwards makes it an ordinary response again.
    public func prepared() -> HTTPServerResponse {
        var response = self
        if bodyFile == nil, stream == nil { response.preparedCopy = PreparedResponse() }
        return response
    }

    /// Whether this is a ``prepared()`` response, sent as built: a header set on it would make it an ordinary one again.
    public var isPrepared: Bool { preparedCopy != nil }

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The file at `path` as the body (removed once opened).
    public static func file(_ path: String, status: Int = 200, headers: HTTPHeaders) -> HTTPServerResponse {
        var response = HTTPServerResponse(status: status, headers: headers)
        response.bodyFile = path
        return response
    }

    /// A body sent as it is written, chunk by chunk: `produce` runs in a task of its own once the
    /// headers are on their way, and the body ends when it returns (or the client leaves, which
    /// cancels it). For Server-Sent Events (`text/event-stream`) and other long answers.
    public static func stream(
        status: Int = 200, headers: HTTPHeaders, _ produce: @escaping @Sendable (HTTPStreamWriter) async -> Void
    ) -> HTTPServerResponse {
        var response = HTTPServerResponse(status: status, headers: headers)
        response.stream = produce
        return response
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }

    /// A JSON response (keys sorted, so answers are byte-for-byte repeatable).
    public static func json(_ value: some Encodable, status: Int = 200) -> HTTPServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return .error(status: 500, code: "internal_error", message: "the response could not be encoded")
        }
        return HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }

    /// A JSON object built as a dictionary (keys sorted, slashes left alone).
    public static func json(object: [String: Any], status: Int = 200) -> HTTPServerResponse {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return .error(status: 500, code: "internal_error", message: "the response could not be encoded")
        }
        return HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }

    /// `{"error": {"code": …, "message": …}}`, the shape every Cashier error takes.
    public static func error(status: Int, code: String, message: String) -> HTTPServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(HTTPErrorBody(code: code, message: message))) ?? Data()
        return HTTPServerResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }
}

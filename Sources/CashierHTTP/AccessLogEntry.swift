import Foundation

/// One line of the access log. It holds only what is safe to log: never the query string (it
/// can carry a client secret), never a header value, never a body.
public struct AccessLogEntry: Sendable {
    public let method: String
    public let path: String
    public let status: Int
    public let responseBytes: Int
    public let requestBytes: Int
    public let duration: Duration
    /// The request's id, as its answer's `X-Request-Id` gave it (`nil` when the answer had none).
    public let requestID: String?

    /// - Parameters:
    ///   - method: `GET`, `POST`, …
    ///   - path: the path, without the query.
    ///   - status: the answer's status.
    ///   - responseBytes: the answer's body size.
    ///   - requestBytes: the request's body size.
    ///   - duration: from the request's start to its answer.
    ///   - requestID: the request's id.
    public init(
        method: String, path: String, status: Int, responseBytes: Int, requestBytes: Int, duration: Duration, requestID: String? = nil
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.responseBytes = responseBytes
        self.requestBytes = requestBytes
        self.duration = duration
        self.requestID = requestID
    }

    /// The header a request's id travels in, both ways.
    public static let requestIDHeader = "X-Request-Id"

    /// The same entry with another path: what a server logs in place of a path that carries a
    /// secret of its own (a checkout link's client secret).
    public func with(path: String) -> AccessLogEntry {
        AccessLogEntry(
            method: method, path: path, status: status, responseBytes: responseBytes, requestBytes: requestBytes, duration: duration,
            requestID: requestID)
    }

    /// The time taken in milliseconds, to the microsecond.
    public var milliseconds: Double {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return (milliseconds * 1000).rounded() / 1000
    }

    /// A JSON line: `{"bytes_in":…,"bytes_out":…,"method":"POST","ms":…,"path":"/notify/wechat/v2","request_id":"req_…","status":200}`.
    public var jsonLine: String {
        var object: [String: Any] = [
            "method": method, "path": path, "status": status, "bytes_out": responseBytes, "bytes_in": requestBytes, "ms": milliseconds,
        ]
        if let requestID { object["request_id"] = requestID }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// A line for people: `POST /v1/orders 201 3.214ms in=57 out=412 id=req_…`.
    public var textLine: String {
        "\(method) \(path) \(status) \(milliseconds)ms in=\(requestBytes) out=\(responseBytes)" + (requestID.map { " id=\($0)" } ?? "")
    }
}

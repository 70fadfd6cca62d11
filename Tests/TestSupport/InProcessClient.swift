public import Cashier
import CashierHTTP
public import Foundation

/// A client of a server answered in process: it sends what a client on a socket would send —
/// the API key as a bearer token, a JSON body — to a handler (a merchant server's `handle(_:)`),
/// and reads the answer as that client would (``InProcessTransport/read(_:of:)``). No socket,
/// port or thread is involved. ``call(_:_:key:headers:json:)`` has the shape of the server
/// suites' fixture call.
///
/// ```swift
/// let client = InProcessClient(base: server.baseURL, key: secretKey) { await server.handle($0) }
/// let created = try await client.call("POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "5.00"]], "currency": "CNY"])
/// #expect(created.status == 201)
/// ```
public struct InProcessClient: Sendable {
    /// Where the server says it is (`http://127.0.0.1:PORT`): the requests' `Host`.
    public let base: URL
    /// The key sent when a call names none.
    public let key: String?
    /// How long a call waits for its answer.
    public let timeout: Duration
    private let handler: InProcessTransport.Handler

    public init(
        base: URL, key: String? = nil, timeout: Duration = .seconds(60), _ handler: @escaping InProcessTransport.Handler
    ) {
        self.base = base
        self.key = key
        self.timeout = timeout
        self.handler = handler
    }

    /// A call with `Authorization: Bearer <key>` (this client's key unless given; `""` sends an
    /// empty one), `Content-Type: application/json` and `json` as the body.
    /// - Returns: the status, the body as a JSON object (empty when it is not one), and the body.
    public func call(_ method: String, _ path: String, key: String? = nil, headers: [String: String] = [:], json: Any? = nil)
        async throws -> (status: Int, object: [String: Any], body: Data)
    {
        var allHeaders = HTTPHeaders()
        for (name, value) in headers { allHeaders.add(name, value) }
        if let key = key ?? self.key { allHeaders.add("Authorization", "Bearer \(key)") }
        allHeaders.add("Content-Type", "application/json")
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let response = try await send(HTTPRequest(method: method, url: url(path), headers: allHeaders, body: body, timeout: timeout))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:], response.body)
    }

    /// Sends `request` to the handler, whatever its URL's host.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await InProcessTransport.read(try await InProcessTransport.exchange(request, handler), of: request)
    }

    /// Opens `path` as a browser opens an event stream: the answer's status and headers, and its
    /// body arriving as it is written (``InProcessStream``), until the test hangs up.
    public func open(_ path: String, headers: HTTPHeaders = [:]) async throws -> (
        status: Int, headers: HTTPHeaders, stream: InProcessStream
    ) {
        let request = HTTPRequest(method: "GET", url: url(path), headers: headers, timeout: timeout)
        let response = try await InProcessTransport.exchange(request, handler)
        let stream = InProcessStream()
        if let produce = response.stream {
            stream.start(produce)
        } else {
            let read = try await InProcessTransport.read(response, of: request)
            stream.start { writer in writer.write(Array(read.body)) }
        }
        return (response.status, response.headers, stream)
    }

    /// `base` with `path` (and its query) after it.
    public func url(_ path: String) -> URL {
        URL(string: base.absoluteString.trimmingCharacters(in: ["/"]) + (path.hasPrefix("/") ? path : "/" + path))!
    }
}

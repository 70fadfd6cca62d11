public import Cashier
public import CashierHTTP
public import Foundation
import Synchronization

/// An ``HTTPTransport`` that opens no socket: each request to an address registered here is
/// answered by calling that address's handler in this process — a merchant server's
/// `handle(_:)`, a sandbox's, a webhook endpoint's. A server given this transport for its calls to
/// the providers, and sandboxes given it for their notifications, reach each other as over
/// loopback, with the same requests and answers and none of the sockets, ports or threads.
///
/// Addresses are `127.0.0.1` with a port from ``reservePort()``, a range no socket in the test
/// process is given (the kernel hands out ports from 32768 up): a request to a reserved port
/// nothing is registered at fails as a refused connection would, never reaching a real socket.
/// A request to any other address goes to `fallback` (libcurl, say), or fails when there is none.
///
/// ```swift
/// let transport = InProcessTransport(fallback: CurlTransport())
/// let port = InProcessTransport.reservePort()
/// let server = MerchantServer(configuration: configuration, store: store, port: port, providerTransport: transport)
/// try await server.start(listening: false)
/// transport.register(port: port) { await server.handle($0) }
/// ```
public final class InProcessTransport: HTTPTransport {
    /// What answers an address: a request in, its response out (as `HTTPServer.handle(_:)`).
    public typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

    private let handlers = Mutex<[String: Handler]>([:])
    private let fallback: (any HTTPTransport)?

    /// - Parameter fallback: where requests to unregistered addresses outside the reserved range go.
    public init(fallback: (any HTTPTransport)? = nil) {
        self.fallback = fallback
    }

    /// The reserved ports: below the kernel's ephemeral range, which is where every test socket
    /// (bound to port 0) gets its port.
    public static let reservedPorts: Range<UInt16> = 2_000..<12_000
    private static let nextPort = Atomic<Int>(0)

    /// A port of the reserved range not handed out before in this process (the range wraps
    /// after 10,000, by which time the first ones are long unregistered).
    public static func reservePort() -> UInt16 {
        let index = nextPort.add(1, ordering: .relaxed).oldValue % reservedPorts.count
        return reservedPorts.lowerBound + UInt16(index)
    }

    /// Answers requests to `127.0.0.1:port` with `handler`, from now on.
    public func register(port: UInt16, _ handler: @escaping Handler) {
        handlers.withLock { $0[Self.key(host: "127.0.0.1", port: Int(port))] = handler }
    }

    /// Stops answering at `127.0.0.1:port` (a request there then fails as a refused connection).
    public func unregister(port: UInt16) {
        _ = handlers.withLock { $0.removeValue(forKey: Self.key(host: "127.0.0.1", port: Int(port))) }
    }

    /// The handler answering `url`'s host and port, if one is registered.
    public func handler(for url: URL) -> Handler? {
        guard let host = url.host else { return nil }
        return handlers.withLock { $0[Self.key(host: host, port: url.port ?? (url.scheme == "https" ? 443 : 80))] }
    }

    private static func key(host: String, port: Int) -> String {
        "\(host == "localhost" ? "127.0.0.1" : host):\(port)"
    }

    /// Whether `url` names a reserved port on loopback (answered here or refused, never sent on).
    static func isReserved(_ url: URL) -> Bool {
        guard let host = url.host, host == "127.0.0.1" || host == "localhost", let port = url.port, port <= UInt16.max else {
            return false
        }
        return reservedPorts.contains(UInt16(port))
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let handler = handler(for: request.url) else {
            if let fallback, !Self.isReserved(request.url) { return try await fallback.send(request) }
            throw PaymentError(
                .transport,
                "\(request.method) \(request.url.host ?? "")\(request.url.path) got no response: nothing answers in process there")
        }
        let response = try await Self.exchange(request, handler)
        return try await Self.read(response, of: request)
    }

    /// The request as a server receives it from a client sending `request`: path and query
    /// percent-decoded as libmicrohttpd decodes them (`+` a space in the query), `Host` set, and
    /// the client's address loopback.
    public static func serverRequest(_ request: HTTPRequest) -> HTTPServerRequest {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath ?? "/"
        let path = rawPath.isEmpty ? "/" : (rawPath.removingPercentEncoding ?? rawPath)
        var query: [(name: String, value: String)] = []
        for pair in (components?.percentEncodedQuery ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            query.append((decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : ""))
        }
        var headers = request.headers
        if headers["Host"] == nil, let host = request.url.host {
            headers.add("Host", request.url.port.map { "\(host):\($0)" } ?? host)
        }
        if !request.body.isEmpty && headers["Content-Length"] == nil { headers.add("Content-Length", String(request.body.count)) }
        var received = HTTPServerRequest(method: request.method, path: path, query: query, headers: headers, body: Array(request.body))
        received.remoteAddress = "127.0.0.1"
        return received
    }

    /// The handler's response, or a transport error once the request's timeout has passed (the
    /// handler goes on, as a server's does when its client gives up).
    static func exchange(_ request: HTTPRequest, _ handler: @escaping Handler) async throws -> HTTPServerResponse {
        let received = serverRequest(request)
        let answered = Answered()
        let work = Task { answered.settle(.success(await handler(received))) }
        let timer = Task {
            await Deadline.pass(request.timeout)
            if !Task.isCancelled {
                answered.settle(.failure(PaymentError(.transport, "\(request.method) \(request.url.path) timed out in process")))
            }
        }
        defer { timer.cancel() }
        _ = work
        return try await answered.value()
    }

    /// The response as a client reads it: a file's bytes (the file removed, as a server removes it
    /// once opened), a streamed body read to its end (within the request's timeout), header values
    /// with a line break dropped, no body to `HEAD`.
    static func read(_ response: HTTPServerResponse, of request: HTTPRequest) async throws -> HTTPResponse {
        var body = Data(response.body)
        var status = response.status
        var headers = HTTPHeaders()
        for field in response.headers where !field.value.contains(where: { $0 == "\r" || $0 == "\n" }) {
            headers.add(field.name, field.value)
        }
        if let path = response.bodyFile {
            if let contents = FileManager.default.contents(atPath: path) {
                body = contents
                try? FileManager.default.removeItem(atPath: path)
            } else {
                status = 500
                headers = ["Content-Type": "application/json"]
                body = Data(#"{"error":{"code":"internal_error","message":"the response's file could not be opened"}}"#.utf8)
            }
        }
        if let produce = response.stream {
            let stream = InProcessStream()
            stream.start(produce)
            guard await stream.ended.wait(within: request.timeout) else {
                stream.hangUp()
                throw PaymentError(.transport, "\(request.method) \(request.url.path) timed out in process (a stream still open)")
            }
            body = Data(stream.received)
        }
        if request.method == "HEAD" { body = Data() }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// The first of the handler's answer and the timeout.
    private final class Answered: Sendable {
        private let state = Mutex<
            (result: Result<HTTPServerResponse, any Error>?, waiter: CheckedContinuation<HTTPServerResponse, any Error>?)
        >(
            (nil, nil))

        func settle(_ result: Result<HTTPServerResponse, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<HTTPServerResponse, any Error>? in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: result)
        }

        func value() async throws -> HTTPServerResponse {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<HTTPServerResponse, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}

/// A streamed response body read in process (an order's event stream): what has arrived so
/// far, a wait for some text or for the end, and the client hanging up — what a test reads from
/// a socket, without the socket.
public final class InProcessStream: Sendable {
    private let state = Mutex<[UInt8]>([])
    private let arrivals = Tally()
    /// Fired once the body has ended.
    public let ended = Signal()
    private let writer = Mutex<HTTPStreamWriter?>(nil)

    public init() {}

    /// Starts the response's producer writing to this stream.
    public func start(_ produce: @escaping @Sendable (HTTPStreamWriter) async -> Void) {
        let writer = HTTPStreamWriter { [self] chunk in
            if let chunk {
                state.withLock { $0 += chunk }
                arrivals.add()
            } else {
                ended.fire()
                arrivals.add()
            }
        }
        self.writer.withLock { $0 = writer }
        writer.run(produce)
    }

    /// Every byte received so far.
    public var received: [UInt8] { state.withLock { $0 } }
    /// What was received so far, as UTF-8.
    public var receivedText: String { String(decoding: received, as: UTF8.self) }

    /// Waits until the body received contains `text` (or ends without it), at most `bound`.
    /// - Returns: whether it does.
    public func read(until text: String, within bound: Duration = .seconds(60)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: bound)
        while true {
            let seen = arrivals.value
            if receivedText.contains(text) { return true }
            if ended.fired || clock.now >= deadline { return false }
            // Woken by the next chunk (or the end), not by polling.
            await arrivals.wait(atLeast: seen + 1, within: deadline - clock.now)
        }
    }

    /// The client leaves: the producer is cancelled, as when a browser closes the page.
    public func hangUp() {
        writer.withLock { $0 }?.hangUp()
    }
}

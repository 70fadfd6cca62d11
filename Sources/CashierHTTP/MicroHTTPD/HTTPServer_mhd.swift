internal import CMicroHTTPD
internal import CMicroHTTPDShims
import Cashier
import Dispatch
import Foundation
import Synchronization

/// A small HTTP/1.1 server over libmicrohttpd: poll() with a thread pool, limits on body and
/// header size, connection timeouts, a graceful stop, and an access log that never holds a
/// body, a header value or a query string. Swift never parses HTTP here; libmicrohttpd does.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0)) { request in .text("hello") }
/// try server.start()
/// print(server.port)
/// server.stop()
/// ```
public final class HTTPServer: Sendable {
    /// Limits and addresses.
    public struct Configuration: Sendable {
        /// The address to listen on; loopback unless you mean otherwise.
        public var host: String
        /// The port; 0 picks a free one (read it back from `port`).
        public var port: UInt16
        /// Worker threads (libmicrohttpd's thread pool). Handlers never run on them (a connection
        /// is suspended while its handler runs), so one per core is enough: the default.
        public var threads: Int

        /// One worker per core, between one and four.
        public static var defaultThreads: Int { min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 4) }
        /// The largest request body accepted; larger ones get 413.
        public var maxBodyBytes: Int
        /// The most a request's line and headers may take, counting libmicrohttpd's record of
        /// each header, query parameter and cookie (`CASHIER_MHD_RECORD_BYTES`); more get 431.
        /// The default, 16 KiB, is twice nginx's default header buffer. Each connection's memory
        /// is this and `CASHIER_MHD_ANSWER_RESERVE` for the answer's headers (see
        /// `connectionMemoryBytes`); libmicrohttpd zeroes all of it before every request on a
        /// connection (a 32 KiB `memset` was 6 % of a bare route's time), so keep it near what
        /// requests need.
        public var maxHeaderBytes: Int
        /// A connection's memory in libmicrohttpd: the largest request accepted and room for its
        /// answer. A request that leaves less than the room is refused with 431 before its
        /// handler runs, so every request handled can be answered; past the memory's end,
        /// libmicrohttpd answers 431 itself. (Between the two, within about 200 bytes of the end,
        /// a request leaves too little room even for the 431 and its connection is closed
        /// unanswered: libmicrohttpd 0.9.75 reserves nothing for answers.)
        var connectionMemoryBytes: Int { maxHeaderBytes + Int(CASHIER_MHD_ANSWER_RESERVE) }
        /// Idle connections are closed after this many seconds.
        public var connectionTimeoutSeconds: Int
        /// The most connections at once.
        public var connectionLimit: Int
        /// The most connections at once from one address (0: no limit), so one client cannot
        /// hold every slot. Behind a proxy every connection comes from the proxy: set 0 there and
        /// limit clients at the proxy.
        public var perIPConnectionLimit: Int
        /// The longest a request may take to arrive, headers and body, from the connection's start
        /// or the previous answer (0: no limit). The idle timeout alone lets a client that sends
        /// a byte now and then hold its connection for ever; past this deadline the connection is
        /// closed. A request whose handler is running, or whose answer is streaming, is not timed.
        public var requestDeadlineSeconds: Int
        /// The most query parameters a request may carry; more get 400. libmicrohttpd keeps a
        /// record of each in the connection's `maxHeaderBytes`, so a query whose parameters
        /// would not fit there beside the target itself gets 414, however few they are.
        public var maxQueryParameters: Int
        /// How many bytes a request target with a query may take, counting a record per parameter
        /// (`CASHIER_MHD_RECORD_BYTES`): half of `maxHeaderBytes`, the rest for the headers and the answer.
        var maxQueryTargetBytes: Int { maxHeaderBytes / 2 }

        public init(
            host: String = "127.0.0.1",
            port: UInt16 = 0,
            threads: Int = Configuration.defaultThreads,
            maxBodyBytes: Int = 1 << 20,
            maxHeaderBytes: Int = 16 * 1024,
            connectionTimeoutSeconds: Int = 30,
            connectionLimit: Int = 1024,
            perIPConnectionLimit: Int = 256,
            requestDeadlineSeconds: Int = 30,
            maxQueryParameters: Int = 64
        ) {
            self.perIPConnectionLimit = perIPConnectionLimit
            self.maxQueryParameters = maxQueryParameters
            self.requestDeadlineSeconds = requestDeadlineSeconds
            self.host = host
            self.port = port
            self.threads = threads
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.connectionLimit = connectionLimit
        }
    }

    public typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

    /// How a request is answered: ``now(_:)``, on the worker thread that read it — for answers that
    /// wait on nothing (no disk, no network, no lock held for long), skipping the suspend, the
    /// task and the resume a handler costs —, ``later(_:)``, by work run in a task of its own while
    /// the connection is suspended, or ``handedOff(_:)``.
    public enum Answer: Sendable {
        case now(HTTPServerResponse)
        case later(@Sendable () async -> HTTPServerResponse)
        /// Work started on the worker thread and handed to a thread of its own (a store's writer),
        /// which calls `answer` once, from that thread, when the response is ready: the
        /// connection is suspended meanwhile as for ``later(_:)``, without a task in between.
        case handedOff(@Sendable (_ answer: @escaping @Sendable (HTTPServerResponse) -> Void) -> Void)
    }

    /// Decides, on the worker thread, how each request is answered (``Router/answer(_:)`` is one).
    public typealias Responder = @Sendable (HTTPServerRequest) -> Answer

    /// What libmicrohttpd's callbacks reach through their `cls` pointer.
    final class Core: @unchecked Sendable {
        let configuration: Configuration
        let responder: Responder
        let accessLog: (@Sendable (AccessLogEntry) -> Void)?
        /// Connections suspended while their handler runs, and whether the server is stopping.
        /// libmicrohttpd aborts the process if it is stopped with a connection still suspended,
        /// so each is resumed exactly once under this lock: by its handler, or by `stop`.
        let suspensions = Mutex(Suspensions())
        /// Requests handed to a handler whose answer has not yet been sent (or given up on):
        /// what `stop` waits for, so an answer resumed just before it is still delivered.
        let unfinished = Atomic<Int>(0)
        /// Handlers that have claimed their connection and are resuming it outside the lock:
        /// `stop` waits for them before libmicrohttpd may be stopped.
        let resuming = Atomic<Int>(0)

        struct Suspensions {
            var connections: [UInt: (connection: SuspendedConnection, response: PendingResponse)] = [:]
            var stopping = false
        }
        /// Streamed bodies being sent, ended when the server stops (a stream would otherwise
        /// hold its connection, and `stop`, for as long as its producer runs).
        let streams = Mutex(Streams())
        /// Requests still arriving, for the whole-request deadline.
        let arrivals = RequestArrivals()

        struct Streams {
            var open: [ObjectIdentifier: HTTPStreamWriter] = [:]
            var stopping = false
        }

        /// Ends every stream, and every stream started from now on.
        func finishStreams() {
            let open = streams.withLock { streams in
                streams.stopping = true
                return Array(streams.open.values)
            }
            for writer in open { writer.finish() }
        }

        init(configuration: Configuration, responder: @escaping Responder, accessLog: (@Sendable (AccessLogEntry) -> Void)?) {
            self.configuration = configuration
            self.responder = responder
            self.accessLog = accessLog
        }
    }

    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let core: Core
    private let daemon = Mutex<Daemon?>(nil)
    private let boundPort = Atomic<UInt16>(0)

    /// - Parameters:
    ///   - configuration: address and limits.
    ///   - accessLog: receives one entry per answered request.
    ///   - responder: answers each request now or later (see ``Answer``).
    public init(configuration: Configuration, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil, responder: @escaping Responder) {
        core = Core(configuration: configuration, responder: responder, accessLog: accessLog)
    }

    /// A server whose every request is answered by `handler`, in a task of its own.
    public convenience init(
        configuration: Configuration, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil, handler: @escaping Handler
    ) {
        self.init(configuration: configuration, accessLog: accessLog) { request in .later { await handler(request) } }
    }

    /// Connections the server holds now (for tests).
    var openConnections: Int { core.arrivals.openConnections }

    /// Connections started since the server did (for tests).
    var connectionsAccepted: Int { core.arrivals.accepted.load(ordering: .relaxed) }

    /// The port the server listens on (after `start`).
    public var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Starts listening.
    /// - Throws: `HTTPServerError` when the address is invalid or the port is taken.
    public func start() throws {
        try daemon.withLock { daemon in
            guard daemon == nil else { return }
            let configuration = core.configuration
            let started = configuration.host.withCString { host in
                cashier_mhd_start(
                    host, configuration.port, UInt32(max(1, configuration.threads)), UInt32(configuration.connectionLimit),
                    UInt32(max(0, configuration.perIPConnectionLimit)), UInt32(configuration.connectionTimeoutSeconds),
                    configuration.connectionMemoryBytes, accessHandler, Unmanaged.passUnretained(core).toOpaque(), completedHandler,
                    Unmanaged.passUnretained(core).toOpaque(), connectionHandler, Unmanaged.passUnretained(core).toOpaque(),
                    targetHandler, Unmanaged.passUnretained(core).toOpaque())
            }
            guard let started else {
                throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port)
            }
            daemon = Daemon(pointer: started)
            boundPort.store(cashier_mhd_bound_port(started), ordering: .releasing)
            if configuration.requestDeadlineSeconds > 0 {
                core.arrivals.startSweeping(deadline: .seconds(configuration.requestDeadlineSeconds))
            }
        }
    }

    /// Answers `request` as a request that arrived on a connection is answered — the responder,
    /// then the access log — without a socket, whether or not the server listens: for a test, or
    /// an in-process transport, that wants the server's answer without the network. Limits a
    /// connection enforces before the responder (body and header sizes, the request deadline)
    /// do not apply. A streamed body (``HTTPServerResponse/stream``) comes back unstarted, for
    /// the caller to run (``HTTPStreamWriter/init(deliver:)``).
    ///
    /// ```swift
    /// let response = await server.handle(HTTPServerRequest(method: "GET", path: "/healthz"))
    /// ```
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let started = ContinuousClock.now
        let response = await Router.response(core.responder(request))
        core.accessLog?(
            AccessLogEntry(
                method: request.method, path: request.path, status: response.status, responseBytes: response.body.count,
                requestBytes: request.body.count, duration: ContinuousClock.now - started,
                requestID: response.headers[AccessLogEntry.requestIDHeader]))
        return response
    }

    /// Stops accepting connections, lets requests in progress finish (up to `grace`), then stops.
    ///
    /// It never blocks a thread of Swift's cooperative pool: the wait is a `Task.sleep`, and
    /// joining libmicrohttpd's threads happens on a thread of its own.
    public func stop(grace: Duration = .seconds(10)) async {
        guard let running = takeDaemon() else { return }
        // Quiescing hands the listening socket back to us; it is ours to close once stopped.
        let listening = MHD_quiesce_daemon(running.pointer)
        core.arrivals.stopSweeping()
        core.finishStreams()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: grace)
        while core.unfinished.load(ordering: .acquiring) > 0 && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        core.answerSuspendedAndStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                MHD_stop_daemon(running.pointer)
                if listening >= 0 { close(listening) }
                continuation.resume()
            }
        }
    }

    private func takeDaemon() -> Daemon? {
        daemon.withLock { daemon -> Daemon? in
            defer { daemon = nil }
            return daemon
        }
    }

    deinit {
        guard let running = takeDaemon() else { return }
        core.arrivals.stopSweeping()
        core.answerSuspendedAndStop()
        MHD_stop_daemon(running.pointer)
    }
}

extension HTTPServer.Core {
    /// Answers every connection whose handler has not finished with 503 and resumes it, and
    /// makes new requests get 503 without a handler: after this, libmicrohttpd may be stopped.
    func answerSuspendedAndStop() {
        finishStreams()
        suspensions.withLock { suspensions in
            suspensions.stopping = true
            for (_, entry) in suspensions.connections {
                entry.response.value.withLock { $0 = HTTPServer.stoppingResponse }
                MHD_resume_connection(entry.connection.pointer)
            }
            suspensions.connections.removeAll()
        }
        // A handler that claimed its connection just before is resuming it now.
        while resuming.load(ordering: .acquiring) > 0 { sched_yield() }
    }

    /// Hands a handler's answer to its suspended connection, unless `stop` answered it already
    /// (the handler outlived the grace period). The lock only claims the entry; libmicrohttpd's
    /// resume (a lock of its own and a wake-up write) happens outside it.
    func resume(_ key: UInt, with response: HTTPServerResponse) {
        let claimed = suspensions.withLock { suspensions -> (connection: SuspendedConnection, response: PendingResponse)? in
            guard let entry = suspensions.connections.removeValue(forKey: key) else { return nil }
            resuming.add(1, ordering: .relaxed)
            return entry
        }
        guard let claimed else { return }
        claimed.response.value.withLock { $0 = response }
        MHD_resume_connection(claimed.connection.pointer)
        resuming.subtract(1, ordering: .releasing)
    }
}

extension HTTPServer {
    static let stoppingResponse = HTTPServerResponse.error(
        status: 503, code: "server_stopping", message: "the server is stopping; retry the request")
}

/// Per-request state, kept in libmicrohttpd's `req_cls` from the first callback to completion.
private final class RequestState {
    var body: [UInt8] = []
    /// Answered without reading its body (too large, or its query cut off): the rest is ignored.
    var refused = false
    /// Why the query was cut off unread, if it was (too many parameters for libmicrohttpd's memory).
    var queryCut: QueryCut?

    /// As `cashier_mhd_cut_query` returns it.
    enum QueryCut: Int32 {
        /// More than `maxQueryParameters`: 400.
        case tooManyParameters = 1
        /// Too long to keep a record for each parameter beside it: 414.
        case tooLong = 2
    }
    /// Set once the request has been answered or handed to its handler.
    var handling = false
    /// Counted in `Core.unfinished` until the request completes.
    var unfinished = false
    /// Where a suspended request's handler leaves its answer (nil when answered at once).
    var response: PendingResponse?
    /// For the access log (read only when there is one).
    let started = ContinuousClock.now
    var method = "GET"
    var path = "/"
}

/// The handler's answer, written by its task and read by the worker libmicrohttpd resumes.
final class PendingResponse: Sendable {
    let value = Mutex<HTTPServerResponse?>(nil)
}

/// A suspended connection, resumed from the handler's task (libmicrohttpd allows that from any thread).
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer

    func suspend() { MHD_suspend_connection(pointer) }
    func resume() { MHD_resume_connection(pointer) }
}

/// Collects header or query values through libmicrohttpd's iterator.
private final class ValueCollector {
    var pairs: [(String, String)] = []
}

private let collectValue: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String)] {
    let collector = ValueCollector()
    _ = MHD_get_connection_values(connection, kind, collectValue, Unmanaged.passUnretained(collector).toOpaque())
    return collector.pairs
}

/// A connection's start and end: its requests are timed from its start (``RequestArrivals``),
/// and what every request on it needs to know of it is read once, into libmicrohttpd's socket context.
private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<HTTPServer.Core>.fromOpaque(cls).takeUnretainedValue()
    if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        let opened = core.arrivals.opened(cashier_mhd_connection_fd(connection), address: clientAddress(connection))
        socketContext.pointee = Unmanaged.passRetained(opened).toOpaque()
    } else if let context = socketContext.pointee {
        socketContext.pointee = nil
        let closed = Unmanaged<RequestArrivals.Connection>.fromOpaque(context).takeRetainedValue()
        core.arrivals.closed(closed)
    }
}

/// The connection's ``RequestArrivals/Connection``, from its socket context.
private func arrivals(of connection: OpaquePointer) -> RequestArrivals.Connection? {
    cashier_mhd_connection_context(connection).map { Unmanaged<RequestArrivals.Connection>.fromOpaque($0).takeUnretainedValue() }
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, requestState, _ in
    // Answered: the next request on this connection is timed from now.
    if let connection { arrivals(of: connection)?.waiting() }
    guard let requestState, let pointer = requestState.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(pointer)
    if state.takeUnretainedValue().unfinished, let cls {
        Unmanaged<HTTPServer.Core>.fromOpaque(cls).takeUnretainedValue().unfinished.subtract(1, ordering: .releasing)
    }
    state.release()
    requestState.pointee = nil
}

/// Sees each request's target before libmicrohttpd parses its query, and cuts off a query it
/// could not hold (see `cashier_mhd_cut_query`): such a request starts with its state made here,
/// marked, and is answered 400 or 414 once its headers are in.
private let targetHandler: cashier_mhd_target_callback = { cls, target, _ in
    guard let cls, let target else { return nil }
    let configuration = Unmanaged<HTTPServer.Core>.fromOpaque(cls).takeUnretainedValue().configuration
    guard
        let cut = RequestState.QueryCut(
            rawValue: cashier_mhd_cut_query(target, max(0, configuration.maxQueryParameters), configuration.maxQueryTargetBytes))
    else { return nil }
    let state = RequestState()
    state.queryCut = cut
    return Unmanaged.passRetained(state).toOpaque()
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestState in
    guard let cls, let connection, let uploadDataSize, let requestState else { return .NO }
    let core = Unmanaged<HTTPServer.Core>.fromOpaque(cls).takeUnretainedValue()
    let limit = core.configuration.maxBodyBytes

    guard let existing = requestState.pointee else {
        // First call: headers are in. Refuse headers that leave no room for an answer, and a
        // declared oversize body before reading it.
        let state = RequestState()
        requestState.pointee = Unmanaged.passRetained(state).toOpaque()
        let headerLimit = core.configuration.maxHeaderBytes
        let headerBytes = cashier_mhd_request_memory(connection)
        if headerBytes > headerLimit {
            return refuse(
                state, connection, core, url: url, method: method, status: 431, code: "headers_too_large",
                message:
                    "the request line and headers take \(headerBytes) bytes, over the \(headerLimit)-byte limit "
                    + "(counting \(CASHIER_MHD_RECORD_BYTES) for each header, query parameter and cookie)")
        }
        // One lookup (libmicrohttpd compares names case-insensitively), not a copy of every header.
        if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let length = Int(String(cString: declared)), length > limit
        {
            return refuse(
                state, connection, core, url: url, method: method, status: 413, code: "body_too_large",
                message: "the request body is over the \(limit)-byte limit")
        }
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    if let cut = state.queryCut, !state.handling {
        let configuration = core.configuration
        switch cut {
        case .tooManyParameters:
            return refuse(
                state, connection, core, url: url, method: method, status: 400, code: "too_many_query_parameters",
                message: "the query has more than \(configuration.maxQueryParameters) parameters")
        case .tooLong:
            return refuse(
                state, connection, core, url: url, method: method, status: 414, code: "query_too_long",
                message:
                    "the query is too long: a request target with a query may take \(configuration.maxQueryTargetBytes) bytes, "
                    + "counting \(CASHIER_MHD_RECORD_BYTES) for each parameter")
        }
    }

    if uploadDataSize.pointee > 0 {
        let size = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        if state.refused { return .YES }  // answered already; libmicrohttpd closes the connection after it
        guard state.body.count + size <= limit, let uploadData else {
            // A chunked body (no Content-Length) past the limit: libmicrohttpd 0.9.75 takes no
            // answer in the middle of a body, so the connection is closed at once rather than the
            // rest read and thrown away. (A declared Content-Length gets its 413 before the body.)
            state.refused = true
            state.body = []
            return .NO
        }
        uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
            state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
        }
        return .YES
    }
    if state.handling {
        // Resumed: the handler has answered.
        guard let response = state.response?.value.withLock({ $0 }) else { return .YES }
        return answer(response, state, connection, core)
    }
    if state.refused { return .YES }
    state.handling = true
    let arriving = arrivals(of: connection)
    arriving?.stopTiming()  // the request is in: its handler runs untimed
    state.method = method.map { String(cString: $0) } ?? "GET"
    state.path = HTTPServerRequest.path(ofTarget: url.map { String(cString: $0) } ?? "/")
    var headers = HTTPHeaders()
    for (name, value) in values(connection, .HEADER_KIND) { headers.add(name, value) }
    let query = values(connection, .GET_ARGUMENT_KIND).map { (name: $0.0, value: $0.1) }
    var request = HTTPServerRequest(method: state.method, path: state.path, query: query, headers: headers, body: state.body)
    request.remoteAddress = arriving.map(\.address) ?? clientAddress(connection)
    let start: @Sendable (_ key: UInt) -> Void
    switch core.responder(request) {
    case .now(let response): return answer(response, state, connection, core)
    case .later(let work): start = { key in Task { core.resume(key, with: await work()) } }
    case .handedOff(let work): start = { key in work { core.resume(key, with: $0) } }
    }
    // The worker does not wait for the handler: the connection is suspended and the worker
    // serves others; the handler's task (or the thread the work was handed to) resumes it with the answer. Requests in flight are
    // bounded by the connection limit, not by the number of workers.
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    let pending = PendingResponse()
    state.response = pending
    let accepted = core.suspensions.withLock { suspensions -> Bool in
        guard !suspensions.stopping else { return false }
        MHD_suspend_connection(connection)
        suspensions.connections[key] = (SuspendedConnection(pointer: connection), pending)
        return true
    }
    guard accepted else { return answer(HTTPServer.stoppingResponse, state, connection, core) }
    core.unfinished.add(1, ordering: .relaxed)  // until libmicrohttpd reports the request completed
    state.unfinished = true
    start(key)
    return .YES
}

/// The peer's address as text, or `nil`.
private func clientAddress(_ connection: OpaquePointer) -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    guard cashier_mhd_client_address(connection, &buffer, buffer.count) == 1 else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A refusal (headers over the limit: 431; a body over it: 413; a query cut off: 400 or 414) answered at once, with
/// `Connection: close`. Queued before the body is read, the answer makes libmicrohttpd close the
/// connection after it rather than drain the rest.
private func refuse(
    _ state: RequestState, _ connection: OpaquePointer, _ core: HTTPServer.Core, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, status: Int, code: String, message: String
) -> MHD_Result {
    state.refused = true
    state.handling = true
    state.body = []
    state.method = method.map { String(cString: $0) } ?? "GET"
    state.path = HTTPServerRequest.path(ofTarget: url.map { String(cString: $0) } ?? "/")
    var response = HTTPServerResponse.error(status: status, code: code, message: message)
    response.headers.set("Connection", "close")
    return answer(response, state, connection, core)
}

private func answer(_ response: HTTPServerResponse, _ state: RequestState, _ connection: OpaquePointer, _ core: HTTPServer.Core)
    -> MHD_Result
{
    let result = ResponseQueue.queue(response, on: connection, core)
    core.accessLog?(
        AccessLogEntry(
            method: state.method, path: state.path, status: response.status, responseBytes: response.body.count,
            requestBytes: state.body.count, duration: ContinuousClock.now - state.started,
            requestID: response.headers[AccessLogEntry.requestIDHeader]))
    return result
}

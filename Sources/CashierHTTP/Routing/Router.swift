import Cashier

/// Routes requests by method and path pattern (`/v1/orders/{id}/events`).
///
/// Unknown paths answer 404; a known path with another method answers 405 with `Allow`.
///
/// ```swift
/// var router = Router()
/// router.add("GET", "/v1/orders/{id}") { request, parameters in .json(try store.order(parameters["id"])) }
/// let server = HTTPServer(configuration: .init(), responder: router.answer)
/// ```
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPServerRequest, RouteParameters) async -> HTTPServerResponse
    /// A handler that answers at once, without waiting on anything (see ``HTTPServer/Answer``).
    public typealias ImmediateHandler = @Sendable (HTTPServerRequest, RouteParameters) -> HTTPServerResponse
    /// A handler that decides on the worker thread how its request is answered (``HTTPServer/Answer``).
    public typealias DecidingHandler = @Sendable (HTTPServerRequest, RouteParameters) -> HTTPServer.Answer

    private struct Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        let handler: Handler
        let deciding: DecidingHandler?
        /// Added with ``addImmediate(_:_:_:)``: its answer is always ``HTTPServer/Answer/now(_:)``.
        let immediate: ImmediateHandler?
        /// The query parameters it takes (``limitQuery(_:_:to:)``); `nil`: any.
        var query: Set<String>? = nil

        /// Why `request`'s query does not suit this route: the first parameter it does not take, or
        /// one given twice (which of two values was meant cannot be told).
        func refusal(_ request: HTTPServerRequest) -> String? {
            guard let query else { return nil }
            if request.query.count > 1 {
                var seen = Set<String>()
                if let repeated = request.query.first(where: { !seen.insert($0.name).inserted }), query.contains(repeated.name) {
                    return "\(repeated.name) is given more than once: give it once"
                }
            }
            guard let unknown = request.query.first(where: { !query.contains($0.name) })?.name else { return nil }
            return "\(KeySuggestion.quoted(unknown)) is not a parameter of \(method) \(pattern)"
                + KeySuggestion.hint(for: unknown, among: query)
        }
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private var routes: [Route] = []
    /// Routes without parameters by method and path: most requests (notifications, health
    /// checks) are found here without scanning the table. Holds only routes no earlier route
    /// would match first, so the scan's answer is never different.
    private var literals: [String: [String: Route]] = [:]

    public init() {}

    /// Adds a route. Pattern segments in braces capture one non-empty path segment.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        add(method, pattern, handler, deciding: nil, immediate: nil)
    }

    /// Adds a route answered on the server's worker thread (``immediateResponse(_:)``): for
    /// answers that wait on nothing, such as a health check. (A name of its own: with an
    /// overload of `add`, any synchronous trailing closure would silently become immediate.)
    public mutating func addImmediate(_ method: String, _ pattern: String, _ handler: @escaping ImmediateHandler) {
        add(
            method, pattern, { request, parameters in handler(request, parameters) }, deciding: { .now(handler($0, $1)) },
            immediate: handler)
    }

    /// Adds a route whose handler decides on the worker thread how its request is answered: at
    /// once, later in a task, or handed to a thread of its own (``HTTPServer/Answer``). The handler
    /// itself may only read and compute (check a signature, say); what it changes belongs in the
    /// answer's work, which runs once.
    public mutating func addDeciding(_ method: String, _ pattern: String, _ handler: @escaping DecidingHandler) {
        add(
            method, pattern, { request, parameters in await Self.response(handler(request, parameters)) }, deciding: handler,
            immediate: nil)
    }

    /// The response an answer comes to, waited for.
    public static func response(_ answer: HTTPServer.Answer) async -> HTTPServerResponse {
        switch answer {
        case .now(let response): response
        case .later(let work): await work()
        case .handedOff(let work): await withCheckedContinuation { continuation in work { continuation.resume(returning: $0) } }
        }
    }

    private mutating func add(
        _ method: String, _ pattern: String, _ handler: @escaping Handler, deciding: DecidingHandler?, immediate: ImmediateHandler?
    ) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        precondition(!routes.contains { $0.method == method && $0.segments == segments }, "route \(method) \(pattern) is defined twice")
        let route = Route(method: method, pattern: pattern, segments: segments, handler: handler, deciding: deciding, immediate: immediate)
        let parts = segments.compactMap { segment -> Substring? in
            if case .literal(let text) = segment { return Substring(text) }
            return nil
        }
        if parts.count == segments.count, !routes.contains(where: { match($0.segments, parts) != nil }) {
            literals[method, default: [:]]["/" + parts.joined(separator: "/")] = route
        }
        routes.append(route)
    }

    /// Limits the route `method pattern` to the query parameters `names`: a request naming another
    /// is answered 400 before the handler runs, naming it and the one probably meant — a misspelt
    /// filter (`?statuss=paid`) would otherwise be ignored and the whole list answered — and so is
    /// one naming a parameter twice (`?status=paid&status=closed` read only the first).
    public mutating func limitQuery(_ method: String, _ pattern: String, to names: Set<String>) {
        for index in routes.indices where routes[index].method == method && routes[index].pattern == pattern {
            routes[index].query = names
        }
        for (path, route) in literals[method] ?? [:] where route.pattern == pattern {
            literals[method]?[path]?.query = names
        }
    }

    /// Every route as (method, pattern), in the order added.
    public var table: [(method: String, pattern: String)] {
        routes.map { ($0.method, $0.pattern) }
    }

    /// The answer of an immediate route (``addImmediate(_:_:_:)``), or nil when the request is
    /// for any other route (``handle(_:)`` answers it).
    public func immediateResponse(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        // Only an immediate route's handler runs here: a deciding one may verify, or start work,
        // that ``handle(_:)`` would then do a second time.
        guard case .route(let route, let parameters) = lookup(request), let immediate = route.immediate else { return nil }
        return immediate(request, parameters)
    }

    /// How the server should answer a request, after one lookup: at once for an immediate
    /// route, an unknown path or a method not allowed; otherwise later, by the route's handler.
    public func answer(_ request: HTTPServerRequest) -> HTTPServer.Answer {
        switch lookup(request) {
        case .route(let route, let parameters):
            if let deciding = route.deciding { return deciding(request, parameters) }
            return .later { await route.handler(request, parameters) }
        case .notAllowed(let allowed):
            var response = HTTPServerResponse.error(
                status: 405, code: "method_not_allowed", message: "\(request.method) is not allowed here")
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return .now(response)
        case .notFound: return .now(.error(status: 404, code: "not_found", message: "no such endpoint"))
        case .badQuery(let message): return .now(.error(status: 400, code: "invalid_request", message: message))
        }
    }

    /// Answers a request.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await Self.response(answer(request))
    }

    private enum Lookup {
        case route(Route, RouteParameters)
        case notAllowed([String])
        case notFound
        case badQuery(String)
    }

    private func lookup(_ request: HTTPServerRequest) -> Lookup {
        if let route = literals[request.method]?[request.path] {
            if let refusal = route.refusal(request) { return .badQuery(refusal) }
            return .route(route, RouteParameters(values: [:]))
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        var allowed: [String] = []
        for route in routes {
            guard let parameters = match(route.segments, parts) else { continue }
            if route.method == request.method || (route.method == "GET" && request.method == "HEAD") {
                if let refusal = route.refusal(request) { return .badQuery(refusal) }
                return .route(route, parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .notAllowed(allowed)
    }

    private func match(_ segments: [Segment], _ parts: [Substring]) -> RouteParameters? {
        guard segments.count == parts.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text) where text == part: continue
            case .literal: return nil
            case .parameter(let name): values[name] = String(part)
            }
        }
        return RouteParameters(values: values)
    }
}

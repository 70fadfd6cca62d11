/// Routes requests by method and path pattern (`/v1/orders/{id}/events`).
///
/// Unknown paths answer 404; a known path with another method answers 405 with `Allow`.
///
/// ```swift
/// var router = Router()
/// router.add("GET", "/v1/orders/{id}") { request, parameters in .json(try store.order(parameters["id"]!)) }
/// let server = HTTPServer(configuration: .init(), handler: router.handle)
/// ```
public struct Router: Sendable {
    public typealias Handler = @Sendable (HTTPServerRequest, RouteParameters) async -> HTTPServerResponse

    private struct Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        let handler: Handler
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private var routes: [Route] = []

    public init() {}

    /// Adds a route. Pattern segments in braces capture one non-empty path segment.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        precondition(!routes.contains { $0.method == method && $0.segments == segments }, "route \(method) \(pattern) is defined twice")
        routes.append(Route(method: method, pattern: pattern, segments: segments, handler: handler))
    }

    /// Every route as (method, pattern), in the order added.
    public var table: [(method: String, pattern: String)] {
        routes.map { ($0.method, $0.pattern) }
    }

    /// Answers a request.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var allowed: [String] = []
        for route in routes {
            guard let parameters = match(route.segments, parts) else { continue }
            if route.method == request.method || (route.method == "GET" && request.method == "HEAD") {
                return await route.handler(request, parameters)
            }
            allowed.append(route.method)
        }
        if !allowed.isEmpty {
            var response = HTTPServerResponse.error(
                status: 405, code: "method_not_allowed", message: "\(request.method) is not allowed here")
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return response
        }
        return .error(status: 404, code: "not_found", message: "no such endpoint")
    }

    private func match(_ segments: [Segment], _ parts: [String]) -> RouteParameters? {
        guard segments.count == parts.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text) where text == part: continue
            case .literal: return nil
            case .parameter(let name): values[name] = part
            }
        }
        return RouteParameters(values: values)
    }
}

/// The values captured by a route's `{name}` segments.
public struct RouteParameters: Sendable {
    let values: [String: String]

    public subscript(_ name: String) -> String? { values[name] }
}

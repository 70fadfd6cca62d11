/// Routes that share a path prefix and middleware, registered into a ``RouterBuilder`` — the
/// shape of hummingbird's `RouterGroup` and Vapor's `RoutesBuilder`. A group is a value:
/// ``add(_:)`` and ``group(_:)`` return a new group, so middleware added for one route does not
/// reach its siblings.
///
/// ```swift
/// let orders = routes.group("/v1/orders/{id}").add(SecretKeyOnly())
/// orders.add(Idempotent(scope: "void")).post("void", name: "void") { request, context in
///     .json(try await captures.void(context.parameters["id"]))
/// }
/// ```
///
/// Middleware runs in the order added, the first outermost; a handler's or a middleware's error
/// that no middleware turns into a response is answered by the builder's `errors` mapping.
public struct RouteGroup<Context: RequestContext>: Sendable {
    public typealias Handler = @Sendable (HTTPServerRequest, Context) async throws -> HTTPServerResponse

    let builder: RouterBuilder
    let prefix: String
    let middleware: [any Middleware<Context>]
    let errors: @Sendable (any Error) -> HTTPServerResponse

    /// The group at the root of `builder`, whose unhandled errors `errors` answers.
    public init(_ builder: RouterBuilder, errors: @escaping @Sendable (any Error) -> HTTPServerResponse) {
        self.init(builder: builder, prefix: "", middleware: [], errors: errors)
    }

    init(
        builder: RouterBuilder, prefix: String, middleware: [any Middleware<Context>],
        errors: @escaping @Sendable (any Error) -> HTTPServerResponse
    ) {
        self.builder = builder
        self.prefix = prefix
        self.middleware = middleware
        self.errors = errors
    }

    /// A group under `path` (appended to this one's prefix) with this group's middleware.
    public func group(_ path: String) -> RouteGroup {
        RouteGroup(builder: builder, prefix: Self.join(prefix, path), middleware: middleware, errors: errors)
    }

    /// This group with `middleware` added after its own.
    public func add(_ middleware: some Middleware<Context>) -> RouteGroup {
        RouteGroup(builder: builder, prefix: prefix, middleware: self.middleware + [middleware], errors: errors)
    }

    /// Registers the routes of `collection` in this group.
    public func register(_ collection: some RouteCollection<Context>) {
        collection.boot(self)
    }

    public func get(_ path: String = "", name: String, _ handler: @escaping Handler) { on("GET", path, name: name, handler) }
    public func post(_ path: String = "", name: String, _ handler: @escaping Handler) { on("POST", path, name: name, handler) }

    /// Registers `handler` for `method` at this group's prefix and `path`, behind its middleware.
    public func on(_ method: String, _ path: String, name: String, _ handler: @escaping Handler) {
        let pattern = Self.join(prefix, path)
        let route = RouteInfo(method: method, pattern: pattern, name: name)
        let chain = middleware
        let errors = errors
        builder.router.add(method, pattern) { request, parameters in
            let context = Context(parameters: parameters, route: route)
            do {
                return try await Self.run(chain[...], request, context, handler)
            } catch {
                return errors(error)
            }
        }
    }

    private static func run(
        _ chain: ArraySlice<any Middleware<Context>>, _ request: HTTPServerRequest, _ context: Context, _ handler: @escaping Handler
    ) async throws -> HTTPServerResponse {
        guard let first = chain.first else { return try await handler(request, context) }
        let rest = chain.dropFirst()
        return try await first.handle(request, context: context) { request, context in
            try await run(rest, request, context, handler)
        }
    }

    static func join(_ prefix: String, _ path: String) -> String {
        guard !path.isEmpty else { return prefix.isEmpty ? "/" : prefix }
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return (prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix) + "/" + trimmed
    }
}

/// A controller: a set of routes registered in a group (Vapor's `RouteCollection`).
public protocol RouteCollection<Context> {
    associatedtype Context: RequestContext
    func boot(_ routes: RouteGroup<Context>)
}

/// The ``Router`` being built: what route groups register into, at start-up only.
public final class RouterBuilder: @unchecked Sendable {
    /// The routes so far. Changed only while the server is being put together, on one thread.
    public var router: Router

    public init(_ router: Router = Router()) { self.router = router }
}

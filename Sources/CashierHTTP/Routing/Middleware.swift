/// Code that runs around a route's handler: it may answer by itself (a refusal), change the
/// request or the context it passes on, or change the response that comes back — the shape of
/// hummingbird's `MiddlewareProtocol`, without its NIO types.
///
/// ```swift
/// struct SecretKeyOnly: Middleware {
///     func handle(_ request: HTTPServerRequest, context: APIContext,
///                 next: @escaping @Sendable (HTTPServerRequest, APIContext) async throws -> HTTPServerResponse) async throws -> HTTPServerResponse {
///         guard context.identity?.caller == .secret else { return .error(status: 401, code: "unauthorized", message: "…") }
///         return try await next(request, context)
///     }
/// }
/// ```
public protocol Middleware<Context>: Sendable {
    associatedtype Context: RequestContext
    func handle(
        _ request: HTTPServerRequest, context: Context,
        next: @escaping @Sendable (HTTPServerRequest, Context) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse
}

/// A middleware written as a closure, for one that needs no type of its own.
public struct MiddlewareClosure<Context: RequestContext>: Middleware {
    public typealias Body =
        @Sendable (
            HTTPServerRequest, Context, (HTTPServerRequest, Context) async throws -> HTTPServerResponse
        ) async throws -> HTTPServerResponse
    let body: Body

    public init(_ body: @escaping Body) { self.body = body }

    public func handle(
        _ request: HTTPServerRequest, context: Context,
        next: @escaping @Sendable (HTTPServerRequest, Context) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        try await body(request, context, next)
    }
}

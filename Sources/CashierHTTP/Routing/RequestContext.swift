/// What a route's middleware and handler know of a request besides the request itself: its
/// route, the values its pattern captured, and what middleware learnt on the way (who is
/// calling, the order it names…). A value: each middleware hands the next one a copy with what
/// it added.
///
/// ```swift
/// struct APIContext: RequestContext {
///     let parameters: RouteParameters
///     let route: RouteInfo
///     var identity: Identity? = nil
///     init(parameters: RouteParameters, route: RouteInfo) { (self.parameters, self.route) = (parameters, route) }
/// }
/// ```
public protocol RequestContext: Sendable {
    init(parameters: RouteParameters, route: RouteInfo)
    /// The values captured by the route's `{name}` segments.
    var parameters: RouteParameters { get }
    /// The route the request was matched to.
    var route: RouteInfo { get }
}

/// A route as it was registered: method, pattern and the name it was given (`void`, `refund`…).
public struct RouteInfo: Sendable, Equatable {
    public let method: String
    public let pattern: String
    public let name: String

    public init(method: String, pattern: String, name: String) {
        self.method = method
        self.pattern = pattern
        self.name = name
    }
}

/// The values captured by a route's `{name}` segments.
public struct RouteParameters: Sendable {
    let values: [String: String]

    public init(values: [String: String]) { self.values = values }

    /// The value of the route's `{name}` segment. The router matched the pattern, so a segment it
    /// has is always there; asking for one it does not have is a mistake in the handler, which
    /// stops the process the first time the route is called (any test of the route finds it).
    public subscript(_ name: String) -> String {
        guard let value = values[name] else { preconditionFailure("the route has no {\(name)} segment") }
        return value
    }

    /// The value of `{name}`, or `nil` when the route has no such segment.
    public func value(_ name: String) -> String? { values[name] }
}

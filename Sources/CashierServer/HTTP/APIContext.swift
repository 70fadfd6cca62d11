import CashierHTTP
import CashierStore

/// What the `/v1` routes' middleware learns on the way to a handler: who is calling
/// (``Authenticate``), the order its `{id}` names when a merchant's own key must own it
/// (``OwnOrder``), and who the action is recorded as.
struct APIContext: RequestContext {
    let parameters: RouteParameters
    let route: RouteInfo
    /// Who is calling; set by ``Authenticate`` (a route without it has none).
    var identity: Identity?
    /// Who an action is recorded as asked by: `api` for the API.
    var actor = "api"

    init(parameters: RouteParameters, route: RouteInfo) {
        self.parameters = parameters
        self.route = route
    }

    /// The caller, on a route behind ``Authenticate``.
    var caller: Identity {
        guard let identity else { preconditionFailure("\(route.method) \(route.pattern) reads the caller without Authenticate") }
        return identity
    }
}

import CashierHTTP

/// What the hosted checkout's routes know of a request: its route. The page holds no key; the
/// order's client secret in its link opens it.
struct CheckoutContext: RequestContext {
    let parameters: RouteParameters
    let route: RouteInfo
}

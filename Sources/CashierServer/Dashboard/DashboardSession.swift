import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// What the dashboard's middleware learns of a request: the signed-in session.
struct DashboardContext: RequestContext {
    let parameters: RouteParameters
    let route: RouteInfo
    /// The session's id (the cookie's value) and its record; set by ``DashboardSession``.
    var session: (id: String, record: DashboardSessions.Session)?

    init(parameters: RouteParameters, route: RouteInfo) {
        self.parameters = parameters
        self.route = route
    }

    /// The signed-in session, on a route behind ``DashboardSession``.
    var signedIn: (id: String, record: DashboardSessions.Session) {
        guard let session else { preconditionFailure("\(route.pattern) reads the session without DashboardSession") }
        return session
    }

    /// Who an action is recorded as asked by (``DashboardSessions/actor(_:)``).
    var actor: String { DashboardSessions.actor(signedIn.id) }
}

/// Lets a signed-in browser through: a page without a session goes to the sign-in page; a form
/// (`form`) without one is refused, and so is a form without the session's CSRF token. What the
/// page or form throws is answered as a page: 404 for a record that is not there, 500 otherwise.
struct DashboardSession: Middleware {
    let sessions: DashboardSessions
    let clock: any WallClock
    /// A form: POST, with the CSRF token.
    var form = false

    func handle(
        _ request: HTTPServerRequest, context: DashboardContext,
        next: @escaping @Sendable (HTTPServerRequest, DashboardContext) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        guard let (id, session) = await sessions.session(cookieHeader: request.headers["Cookie"], now: clock.now()) else {
            return form
                ? Dashboard.notice(status: 403, "Signed out", "Your session ended. Sign in again.") : Dashboard.redirect("/dashboard/login")
        }
        if form {
            // A form with files comes as multipart; the token is one of its fields.
            guard let token = Dashboard.form(request).fields["csrf"], ConstantTime.equals(token, session.csrf) else {
                return Dashboard.notice(
                    status: 403, "Refused", "This form is stale or did not come from the dashboard (CSRF token missing or wrong).")
            }
        }
        var context = context
        context.session = (id, session)
        do {
            return try await next(request, context)
        } catch let error as StoreError where error.code == .notFound {
            // A page link or form naming a record that is not there (an edited `after`, an old bookmark).
            return Dashboard.notice(status: 404, "Not found", error.message)
        } catch {
            return Dashboard.notice(
                status: 500, "Something went wrong",
                "\(ErrorMapping<DashboardContext>.response(for: error).status): the action could not be completed.")
        }
    }
}

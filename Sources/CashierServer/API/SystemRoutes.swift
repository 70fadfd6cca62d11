import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

/// The routes that are not the API's: `/healthz` and `/openapi.json`, answered on the worker
/// thread without a task (a load balancer's checks cost nothing), `/metrics`, and Apple Pay's
/// domain-association file.
struct SystemRoutes: Sendable {
    let configuration: MerchantConfiguration
    let metrics: ServerMetrics
    let instanceID: String
    /// With the sandbox's test helpers in the document.
    let sandbox: Bool

    func register(on router: inout Router) {
        let health = HTTPServerResponse.json(HealthJSON(status: "ok", instance: instanceID)).prepared()
        router.addImmediate("GET", "/healthz") { _, _ in health }
        let document: HTTPServerResponse
        do {
            let data = try OpenAPIDocument.served(sandbox: sandbox)
            document = HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(data)).prepared()
        } catch {
            document = .error(status: 500, code: "internal_error", message: "the OpenAPI document could not be written: \(error)")
        }
        router.addImmediate("GET", "/openapi.json") { _, _ in document }
        let metricsAccess = configuration.metricsAccess
        let metrics = metrics
        // Answered in a task: the gauges are measured at each scrape (the webhook backlog reads the store).
        router.add("GET", "/metrics") { request, _ in
            switch metricsAccess {
            case .open: break
            case .closed:
                return .error(
                    status: 404, code: "not_found",
                    message:
                        "/metrics is not served here: configure metrics.token_env (a bearer token) or metrics.listen (a private address)")
            case .token(let token):
                guard let key = KeyRing.bearerKey(request), ConstantTime.equals(key, token) else {
                    return .error(status: 401, code: "unauthorized", message: "send Authorization: Bearer <metrics.token>")
                }
            }
            return .text(await metrics.render(), contentType: "text/plain; version=0.0.4")
        }
        let association = configuration.applePay?.domainAssociation
        router.add("GET", "/.well-known/apple-developer-merchantid-domain-association") { _, _ in
            guard let association else {
                return .error(
                    status: 404, code: "not_found", message: "no domain-association file is configured (applepay.domain_association_file)")
            }
            return .text(association, contentType: "text/plain")
        }
    }
}

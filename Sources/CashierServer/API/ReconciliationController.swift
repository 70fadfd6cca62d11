import CashierHTTP

/// `GET /v1/reconciliations/{date}`: the day's bills against the payments here — the platform's
/// secret key only.
struct ReconciliationController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        routes.add(middleware.secretKey).add(middleware.platformOnly).get("/v1/reconciliations/{date}", name: "reconciliation") {
            _, context in
            .json(try await Reconciler(ledger: ledger).run(date: context.parameters["date"], progress: { _ in }))
        }
    }
}

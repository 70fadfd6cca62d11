import Cashier
import CashierHTTP
import CashierStore

/// `/v1/test_helpers/…`, only when the server is given a ``SandboxPayer`` (`cashier-sandbox
/// serve`): what a payer does, for tools that drive the API alone.
struct TestHelpersController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware
    let payer: any SandboxPayer
    let watch: OrderWatch

    /// How long the helper waits for the sandbox's notification to be recorded.
    static let patience: Duration = .seconds(10)

    func boot(_ routes: RouteGroup<APIContext>) {
        // The order's newest open WeChat Pay or Alipay attempt is paid in the sandbox, which
        // notifies this server as the provider would; answers the order once that notification is
        // recorded (up to 10 s).
        routes.add(middleware.secretKey).add(middleware.ownOrder).post("/v1/test_helpers/orders/{id}/pay", name: "test_pay") { _, context in
            let id = context.parameters["id"]
            guard let order = try await ledger.store.order(id: id) else { throw APIError.noOrder(id, forTheseCredentials: false) }
            let open = try await ledger.store.payments(orderID: id).filter {
                $0.status == .pending && $0.provider != .applePay
            }.max { $0.createdAt < $1.createdAt }
            guard let payment = open else {
                throw APIError.invalidState(
                    "order \(id) has no open WeChat Pay or Alipay payment: start one (POST /v1/orders/\(id)/payments) first")
            }
            // Watched before paying: the notification may be recorded before this asks again.
            let bell = watch.watch(orderID: id, version: order.version)
            defer { watch.stopWatching(bell) }
            guard try await payer.pay(provider: payment.provider, outTradeNo: payment.outTradeNo) else {
                throw APIError.invalidState("the sandbox has no open attempt \(payment.outTradeNo)")
            }
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: Self.patience)
            while true {
                if let now = try await ledger.store.order(id: id), now.status.hasReceivedMoney {
                    return .json(try await ledger.orders.view(now, includeSecret: true))
                }
                guard clock.now < deadline, await bell.wait(upTo: deadline - clock.now) != .cancelled else { break }
            }
            throw APIError.invalidState("the sandbox paid \(payment.outTradeNo), but no notification arrived")
        }
    }
}

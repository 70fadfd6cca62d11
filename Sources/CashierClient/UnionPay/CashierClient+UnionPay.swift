import Foundation

/// UnionPay's methods, as the server names them.
public enum UnionPayMethod: String, Sendable, CaseIterable {
    /// Apple Pay through UnionPay's gateway (`UPAPayPlugin`): CNY on China UnionPay cards in mainland China.
    case applePay = "unionpay.applepay"
    /// 云闪付 / UnionPay's card control (`UPPaymentControl`).
    case app = "unionpay.app"
}

extension CashierClient {
    /// Starts a UnionPay payment: the server sends UnionPay's consume and answers the `tn`.
    /// - Parameters:
    ///   - orderID: the order your backend created.
    ///   - clientSecret: the order's client secret, from your backend.
    ///   - method: Apple Pay through UnionPay, or 云闪付.
    ///   - wallets: what the device can pay with (``PayerWallets``), sent as `payer_wallets` when given.
    public func startUnionPayPayment(orderID: String, clientSecret: String, method: UnionPayMethod, wallets: PayerWallets? = nil)
        async throws -> UnionPayPayment
    {
        struct Body: Encodable {
            let method: String
            let client_secret: String
            let payer_wallets: PayerWallets?
        }
        let body = Body(method: method.rawValue, client_secret: clientSecret, payer_wallets: wallets)
        return try UnionPayPayment(json: try await send("POST", "/v1/orders/\(orderID)/payments", body))
    }

    /// The whole UnionPay payment: the `tn` from the server, to the wallet, and — unless the payer
    /// cancelled — the server's word on how it ended (the plugin's "success" is never taken).
    public func payWithUnionPay(
        orderID: String, clientSecret: String, method: UnionPayMethod, wallet: any UnionPayWallet, wallets: PayerWallets? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> PaymentResult {
        let payment = try await startUnionPayPayment(orderID: orderID, clientSecret: clientSecret, method: method, wallets: wallets)
        let outcome = try await UnionPayLauncher(wallet: wallet).launch(payment)
        return try await finish(orderID: orderID, clientSecret: clientSecret, after: outcome, timeout: timeout)
    }
}

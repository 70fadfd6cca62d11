public import Cashier

/// Pays a payment attempt in a provider's sandbox, as the payer would: what `cashier serve
/// --sandbox` gives the server so that `POST /v1/test_helpers/orders/{id}/pay` exists (and the
/// OpenAPI document lists it), for tools that drive the API alone (Schemathesis's stateful phase).
public protocol SandboxPayer: Sendable {
    /// - Returns: `false` when the sandbox has no such attempt.
    func pay(provider: PaymentProvider, outTradeNo: String) async throws -> Bool
}

/// How the app hands parameters to a wallet and learns what it said: the ten-line adapters for
/// `WXApi`, `AlipaySDK` and PassKit conform to it (see the README); `SandboxLauncher` plays the
/// wallets against the Cashier sandbox in tests.
public protocol PaymentLauncher: Sendable {
    func launch(_ parameters: WalletParameters, for order: ClientOrder) async throws -> WalletOutcome
}

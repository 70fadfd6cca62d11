public import Cashier

/// A WeChat trade as the sandbox's payer pages show it.
public struct SandboxTrade: Sendable, Equatable {
    public let outTradeNo: String
    public let total: Money
    public let subject: String
    /// Whom the payer pays (the mch_id).
    public let merchant: String
    /// What a Native order's QR code says.
    public let codeURL: String?
    /// `NOTPAY`, `SUCCESS`, `CLOSED`, …
    public let state: String
}

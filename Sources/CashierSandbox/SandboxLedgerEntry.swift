/// One trade as a sandbox keeps it, for `GET /sandbox/ledger`: what the provider's own books say
/// was paid and refunded — the other side of a merchant server's records.
public struct SandboxLedgerEntry: Sendable, Equatable, Encodable {
    public struct Refund: Sendable, Equatable, Encodable {
        public let out_refund_no: String
        public let amount_minor: Int64
        /// `SUCCESS`, or the failure the provider reported (`CHANGE`, `ABNORMAL`, `FAILED`, …).
        public let status: String
    }

    /// `wechat.v2`, `wechat.v3` or `alipay`.
    public let provider: String
    public let out_trade_no: String
    /// The provider's word: `NOTPAY`, `SUCCESS`, `REFUND`, `CLOSED`, `WAIT_BUYER_PAY`, `TRADE_SUCCESS`, …
    public let state: String
    /// `true` when money was taken (whatever has been refunded since).
    public let paid: Bool
    public let amount_minor: Int64
    public let currency: String
    public let transaction_id: String?
    public let refunds: [Refund]
    /// What the merchant sent with the order besides amount and number, as the provider named
    /// it: the payer's IP (`spbill_create_ip`, `payer_client_ip`), the expiry (`time_expire`,
    /// `timeout_express`), `attach` / `passback_params`, the goods detail — to check a server
    /// passes them on.
    public var sent: [String: String] = [:]

    /// What successful refunds returned.
    public var refunded_minor: Int64 { refunds.filter { $0.status == "SUCCESS" }.reduce(0) { $0 + $1.amount_minor } }
}

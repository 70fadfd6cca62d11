import Foundation

/// What the Alipay sandbox keeps of profit sharing (分账): each app's royalty relations, each
/// settle request, what each trade has settled, the apps' application gateways (where
/// `alipay.trade.order.settle.notify` goes), and the clock async settles finish by. Held by
/// ``AlipaySandbox``; the rules live in ``AlipaySandbox`` `+Royalty`.
struct AlipayRoyaltyDesk: Sendable {
    /// A bound receiver.
    struct Relation: Sendable, Equatable {
        let type: String
        let account: String
        let name: String?
        let memo: String?
    }

    /// One receiver's share of a settle request.
    struct Detail: Sendable {
        let transInType: String
        let transIn: String
        let amount: Int64
        let description: String?
        let detailID: String
        var state: String
        var errorCode: String?
        var errorDescription: String?
        var executed: Date?
    }

    /// One settle request, by trade and `out_request_no`.
    struct Settle: Sendable {
        let appID: String
        let outTradeNo: String
        let tradeNo: String
        let outRequestNo: String
        let settleNo: String
        let mode: String
        /// What makes a repeat the same request: the trade, the shares, the mode and the finish.
        let fingerprint: String
        let finish: Bool
        let created: Date
        var details: [Detail]
        /// An async settle's details are decided from this moment (sandbox clock); `nil` once decided.
        var decideAt: Date?
    }

    /// What one trade has been through.
    struct Book: Sendable {
        /// `sync` or `async`, fixed by the first settle that paid anyone.
        var mode: String?
        /// Ended by `royalty_finish`: nothing more is settled; the rest unfroze to the merchant.
        var finished = false
        /// Settle requests accepted, in order (their keys).
        var settles: [String] = []
    }

    /// Relations by app, in the order they were bound.
    var relations: [String: [Relation]] = [:]
    /// Settles by ``key(_:_:)``.
    var settles: [String: Settle] = [:]
    /// Books by `out_trade_no`.
    var books: [String: Book] = [:]
    /// Application gateways by app id.
    var gateways: [String: String] = [:]
    /// Receivers whose async shares fail (`FAIL`, as a frozen or closed account would).
    var failingAccounts: Set<String> = []
    /// The most that may go to others, in percent of the trade's total (Alipay's default is 30).
    var maxRatioPercent: Int64 = 30
    /// How long an async settle stays `PROCESSING` by the sandbox clock.
    var asyncDelay: TimeInterval = 2
    /// The sandbox clock: `base()` moved on by `offset` (``AlipaySandbox/advanceRoyaltyClock(by:)``).
    var base: @Sendable () -> Date = { Date() }
    var offset: TimeInterval = 0

    func now() -> Date { base().addingTimeInterval(offset) }

    static func key(_ tradeNo: String, _ outRequestNo: String) -> String { tradeNo + "/" + outRequestNo }

    /// What a trade's settles hold: every detail not failed.
    func settled(_ outTradeNo: String) -> Int64 {
        (books[outTradeNo]?.settles ?? []).compactMap { settles[$0] }.reduce(0) { total, settle in
            total + settle.details.filter { $0.state != "FAIL" }.reduce(0) { $0 + $1.amount }
        }
    }
}

/// A settle request as the sandbox holds it: what tests read (``AlipaySandbox/royaltySettles(outTradeNo:)``).
public struct SandboxRoyaltySettle: Sendable, Codable, Equatable {
    public struct Detail: Sendable, Codable, Equatable {
        public let trans_in: String
        public let amount_minor: Int64
        public let state: String
        public let error_code: String?
    }

    public let app_id: String
    public let out_trade_no: String
    public let trade_no: String
    public let out_request_no: String
    public let settle_no: String
    public let royalty_mode: String
    public let royalty_finish: Bool
    public let details: [Detail]
}

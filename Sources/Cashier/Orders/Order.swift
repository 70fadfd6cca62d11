public import Foundation

/// A merchant's order: what is being paid for, how much, and where its payment stands.
///
/// Orders are priced by the merchant's server (never by the app). The total is the sum of the
/// items and must be positive; the trade number is acceptable to every provider.
///
/// ```swift
/// var order = try Order(summary: summary, description: "2 lattes")
/// try order.apply(.paymentStarted)   // created → pending
/// try order.apply(.paymentSucceeded) // pending → paid
/// ```
public struct Order: Hashable, Sendable, Codable {
    /// Cashier's identifier, `ord_` followed by 24 letters and digits.
    public let id: String
    /// The merchant trade number sent to providers.
    public let outTradeNo: String
    /// Items and total.
    public let summary: PaymentSummary
    /// What the payer sees as the subject (WeChat `body`, Alipay `subject`); 1 to
    /// ``descriptionLimit`` UTF-8 bytes.
    public let description: String
    /// The longest description in UTF-8 bytes: WeChat Pay's limit for `body`.
    public static let descriptionLimit = 128
    /// The merchant's own key-value pairs (at most 20 keys, never sent to providers).
    public let metadata: [String: String]
    /// When the order was created.
    public let createdAt: Date
    /// After this the order is closed unpaid; `nil` for no expiry.
    public let expiresAt: Date?
    /// Where the payment stands.
    public private(set) var status: PaymentStatus
    /// `true` when money arrived for an order that was already closed and must be refunded.
    public private(set) var refundRequired: Bool

    /// The amount to pay.
    public var total: Money { summary.total }

    /// Creates an order in status `created`.
    /// - Parameters:
    ///   - id: Cashier's id (generated when omitted).
    ///   - outTradeNo: the trade number (generated when omitted; validated when given).
    ///   - summary: items and total; the total must be positive.
    ///   - description: the subject shown to the payer.
    ///   - metadata: the merchant's own data.
    ///   - createdAt: creation time.
    ///   - expiresAt: expiry time, after `createdAt`.
    /// - Throws: `MoneyError` naming the field that is wrong.
    public init(
        id: String = Order.makeID(),
        outTradeNo: String = TradeNumber.generate(),
        summary: PaymentSummary,
        description: String,
        metadata: [String: String] = [:],
        createdAt: Date = Date(),
        expiresAt: Date? = nil
    ) throws {
        try TradeNumber.validate(outTradeNo, for: .every)
        guard summary.total.isPositive else {
            throw MoneyError(.invalidTotal, "an order must have a positive total, not \(summary.total)")
        }
        guard !description.trimmingWhitespace.isEmpty, description.utf8.count <= Self.descriptionLimit else {
            throw MoneyError(
                .invalidItem, "an order description must be 1 to \(Self.descriptionLimit) UTF-8 bytes (WeChat Pay's limit for body)")
        }
        guard metadata.count <= 20 else {
            throw MoneyError(.invalidItem, "an order takes at most 20 metadata keys, not \(metadata.count)")
        }
        if let expiresAt, expiresAt <= createdAt {
            throw MoneyError(.invalidItem, "an order must expire after it is created")
        }
        self.id = id
        self.outTradeNo = outTradeNo
        self.summary = summary
        self.description = description
        self.metadata = metadata
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.status = .created
        self.refundRequired = false
    }

    /// Moves the order by one event of the state machine.
    /// - Returns: the transition taken.
    /// - Throws: `MoneyError.illegalTransition`; the order is unchanged.
    @discardableResult
    public mutating func apply(_ event: PaymentEvent) throws -> PaymentTransition {
        let transition = try PaymentStateMachine.transition(from: status, on: event)
        status = transition.to
        if transition.requiresRefund { refundRequired = true }
        return transition
    }

    /// `true` when the order has an expiry and `date` is at or past it.
    public func isExpired(at date: Date) -> Bool {
        expiresAt.map { date >= $0 } ?? false
    }

    /// A new order id: `ord_` and 24 random letters and digits.
    public static func makeID() -> String {
        "ord_" + RandomText.alphanumeric(count: 24)
    }

    enum CodingKeys: String, CodingKey {
        case id
        case outTradeNo = "out_trade_no"
        case summary, description, metadata, status
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case refundRequired = "refund_required"
    }
}

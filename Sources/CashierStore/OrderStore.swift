public import Cashier
public import Foundation

/// An order as stored.
public struct StoredOrder: Sendable, Equatable {
    public let id: String
    /// The number sent to the providers.
    public let outTradeNo: String
    public let status: PaymentStatus
    public let total: Money
    /// What has been refunded so far (same currency).
    public let refunded: Money
    public let description: String
    public let metadata: [String: String]
    /// The line items as the API received them (JSON).
    public let itemsJSON: String
    /// Lets the app (with the publishable key) read this one order.
    public let clientSecret: String
    /// A payment arrived for an order that was closed or had expired: the money must go back.
    public let refundRequired: Bool
    /// Grows by one with every change; compare-and-set uses it.
    public let version: Int64
    public let createdAt: Date
    public let expiresAt: Date?
}

/// What ``OrderStore/create(_:)`` takes.
public struct NewOrder: Sendable {
    public var id: String
    public var outTradeNo: String
    public var total: Money
    public var description: String
    public var metadata: [String: String]
    public var itemsJSON: String
    public var clientSecret: String
    public var expiresAt: Date?

    public init(
        id: String, outTradeNo: String, total: Money, description: String, metadata: [String: String] = [:], itemsJSON: String = "[]",
        clientSecret: String, expiresAt: Date? = nil
    ) {
        self.id = id
        self.outTradeNo = outTradeNo
        self.total = total
        self.description = description
        self.metadata = metadata
        self.itemsJSON = itemsJSON
        self.clientSecret = clientSecret
        self.expiresAt = expiresAt
    }
}

/// One entry of an order's append-only log: a transition, or an inbound notification that was
/// verified (its fields) or refused, with the SHA-256 of the raw body.
public struct OrderEvent: Sendable, Equatable {
    public let sequence: Int64
    public let orderID: String
    /// `transition`, `notification`, `refund`, …
    public let kind: String
    public let from: PaymentStatus?
    public let to: PaymentStatus?
    /// JSON: the verified fields, the reason for a refusal, the provider's ids.
    public let detail: String
    public let bodySHA256: String?
    public let createdAt: Date
}

/// What to append beside a change (or alone).
public struct EventRecord: Sendable {
    public var kind: String
    public var detail: String
    public var bodySHA256: String?

    public init(kind: String, detail: String = "{}", bodySHA256: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.bodySHA256 = bodySHA256
    }
}

/// A webhook waiting to be delivered.
public struct OutboxMessage: Sendable, Equatable {
    /// Unique per event: receivers dedupe by it.
    public let id: String
    public let orderID: String
    /// `order.paid`, `order.refunded`, `order.closed`, `order.refund_required`.
    public let type: String
    public let payload: String
    public let attempts: Int
    public let nextAttemptAt: Date
    public let deliveredAt: Date?
}

/// The result of ``OrderStore/apply(_:to:refunded:record:now:)``.
public enum TransitionOutcome: Sendable, Equatable {
    /// The order moved, once; the transition, its event and its outbox message are stored together.
    case applied(StoredOrder, PaymentTransition)
    /// The order is already where the event leads (a duplicate notification): nothing changed.
    case unchanged(StoredOrder)
}

/// An idempotency key's state.
public enum IdempotencyLookup: Sendable, Equatable {
    /// Never seen: do the work, then ``OrderStore/saveIdempotentResponse(key:requestSHA256:status:body:)``.
    case new
    /// Seen with the same request: answer this again.
    case replay(status: Int, body: [UInt8])
    /// Seen with another request: refuse (409).
    case conflict
}

/// Where orders live. Every change is a compare-and-set inside one transaction that also appends
/// to the order's event log and, when the change is one a merchant hears about, to the webhook
/// outbox — so a crash leaves either all of it or none. SQLite today; PostgreSQL implements the
/// same protocol.
public protocol OrderStore: Sendable {
    /// Applies the named migrations not yet applied, in order. - Returns: their names.
    @discardableResult
    func migrate() async throws -> [String]

    /// - Throws: `StoreError.conflict` when the id or `outTradeNo` exists.
    func create(_ order: NewOrder) async throws -> StoredOrder
    func order(id: String) async throws -> StoredOrder?
    func order(outTradeNo: String) async throws -> StoredOrder?

    /// Orders newest first, optionally of one status, after the cursor `before` (an order id from
    /// the previous page).
    func orders(status: PaymentStatus?, before: String?, limit: Int) async throws -> [StoredOrder]

    /// Orders still `created`, `pending` or `failed` whose expiry is before `date`, oldest first.
    func unpaidOrders(expiringBefore date: Date, limit: Int) async throws -> [StoredOrder]

    /// Moves an order by `event` if the state machine allows it from its current status.
    /// - Parameters:
    ///   - refunded: the new refunded total, for refund events.
    ///   - record: appended with the transition.
    /// - Returns: `.unchanged` when the order already is where a success or refund leads (a
    ///   duplicate). - Throws: `StoreError.illegalTransition` (nothing changed), `.notFound`.
    func apply(_ event: PaymentEvent, to orderID: String, refunded: Money?, record: EventRecord, now: Date) async throws
        -> TransitionOutcome

    /// Appends to an order's log without changing it (a duplicate or refused notification).
    func append(_ record: EventRecord, to orderID: String, now: Date) async throws
    func events(orderID: String) async throws -> [OrderEvent]

    func idempotency(key: String, requestSHA256: String) async throws -> IdempotencyLookup
    func saveIdempotentResponse(key: String, requestSHA256: String, status: Int, body: [UInt8]) async throws

    /// Undelivered messages due at `now`, oldest first.
    func dueOutbox(now: Date, limit: Int) async throws -> [OutboxMessage]
    func markDelivered(_ id: String, at: Date) async throws
    func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date) async throws
}

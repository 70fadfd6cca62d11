public import Cashier
public import Foundation

/// One entry of an order's append-only log: a transition, or an inbound notification that was
/// verified (its fields) or refused, with the SHA-256 of the raw body.
public struct OrderEvent: Sendable, Equatable {
    public let sequence: Int64
    public let orderID: String
    public let kind: EventKind
    public let from: PaymentStatus?
    public let to: PaymentStatus?
    /// JSON: the verified fields, the reason for a refusal, the provider's ids.
    public let detail: String
    public let bodySHA256: String?
    public let createdAt: Date
}

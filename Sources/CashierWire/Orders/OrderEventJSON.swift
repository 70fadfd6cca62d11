/// One entry of an order's event log (`GET /v1/orders/{id}/events`): a transition, a
/// notification, a refund asked for, … oldest first.
public struct OrderEventJSON: Codable, Sendable, Equatable {
    public let sequence: Int64
    public let kind: String
    public let from: String?
    public let to: String?
    /// A JSON object, as text.
    public let detail: String
    public let body_sha256: String?
    public let created: Int64

    public init(sequence: Int64, kind: String, from: String?, to: String?, detail: String, body_sha256: String?, created: Int64) {
        self.sequence = sequence
        self.kind = kind
        self.from = from
        self.to = to
        self.detail = detail
        self.body_sha256 = body_sha256
        self.created = created
    }
}

/// What a webhook about a transfer delivers (`transfer.created`, `transfer.succeeded`,
/// `transfer.failed`, `transfer.cancelled`): the transfer as it was when the event happened.
/// Signed and retried as every webhook; a transfer's events leave in order.
///
/// ```swift
/// let event = try JSONDecoder().decode(TransferEventJSON.self, from: body)  // after checking Cashier-Signature
/// if event.type == "transfer.succeeded" { markPaidOut(event.data.transfer.id) }
/// ```
public struct TransferEventJSON: Codable, Sendable, Equatable {
    public struct Data: Codable, Sendable, Equatable {
        public let transfer: TransferJSON
        public init(transfer: TransferJSON) { self.transfer = transfer }
    }

    /// `evt_…`, also sent as `Cashier-Event-Id`.
    public let id: String
    public let type: String
    /// Unix seconds.
    public let created: Int64
    public let data: Data

    public init(id: String, type: String, created: Int64, data: Data) {
        self.id = id
        self.type = type
        self.created = created
        self.data = data
    }

    /// Every transfer event type: accepted by the provider, then how it ended.
    public static let types = ["transfer.created", "transfer.succeeded", "transfer.failed", "transfer.cancelled"]
}

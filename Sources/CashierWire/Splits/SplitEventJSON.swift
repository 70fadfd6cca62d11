/// What a webhook about a split delivers (`split.created`, `split.finished`, `split.failed`,
/// `split.returned`, `split.return_failed`): the split as it was when the event happened, and the
/// return for a return's events. Signed and retried as every webhook; queued under the split's
/// order, so an order's events leave in order.
///
/// ```swift
/// let event = try JSONDecoder().decode(SplitEventJSON.self, from: body)  // after checking Cashier-Signature
/// if event.type == "split.finished" { settleSellers(event.data.split) }
/// ```
public struct SplitEventJSON: Codable, Sendable, Equatable {
    public struct Data: Codable, Sendable, Equatable {
        public let split: SplitJSON
        /// The return, for `split.returned` and `split.return_failed`.
        public let `return`: SplitReturnJSON?

        public init(split: SplitJSON, return splitReturn: SplitReturnJSON? = nil) {
            self.split = split
            self.return = splitReturn
        }
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

    /// Every split event type: accepted by the provider, how it ended, and how a return ended.
    public static let types = ["split.created", "split.finished", "split.failed", "split.returned", "split.return_failed"]
}

/// `GET /v1/payments` and `GET /v1/refunds`'s answer: a page of records across orders.
public struct RecordPage<Item: Encodable & Sendable>: Encodable, Sendable {
    public let data: [Item]
    /// More records follow: ask again with `starting_after` set to the last one's id.
    public let has_more: Bool

    public init(data: [Item], has_more: Bool) {
        self.data = data
        self.has_more = has_more
    }
}

extension RecordPage: Decodable where Item: Decodable {}
extension RecordPage: Equatable where Item: Equatable {}

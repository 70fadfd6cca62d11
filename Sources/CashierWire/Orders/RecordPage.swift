/// `GET /v1/payments` and `GET /v1/refunds`'s answer: a page of records across orders.
public struct RecordPage<Item: Encodable & Sendable>: Encodable, Sendable {
    public let data: [Item]
    /// More records follow: ask again with `starting_after` set to the last one's id.
    public let has_more: Bool

    public init(data: [Item], has_more: Bool) {
        self.data = data
        self.has_more = has_more
    }

    /// A page of `limit` from `fetched`, read one past it: `has_more` when that one came back.
    /// - Parameters:
    ///   - fetched: up to `limit + 1` records, in order.
    ///   - limit: how many the page holds.
    ///   - item: each record as the page gives it.
    public init<Record>(fetched: [Record], limit: Int, _ item: (Record) throws -> Item) rethrows {
        self.init(data: try fetched.prefix(limit).map(item), has_more: fetched.count > limit)
    }
}

extension RecordPage: Decodable where Item: Decodable {}
extension RecordPage: Equatable where Item: Equatable {}

/// `GET /v1/orders`'s answer: a page of orders, newest first.
public struct OrderPage: Codable, Sendable, Equatable {
    public let data: [OrderJSON]
    /// More orders follow: ask again with `starting_after` set to the last one's id.
    public let has_more: Bool

    public init(data: [OrderJSON], has_more: Bool) {
        self.data = data
        self.has_more = has_more
    }
}

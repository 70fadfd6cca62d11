/// `GET /v1/orders/{id}/events`'s answer: the whole log, oldest first.
public struct OrderEventPage: Codable, Sendable, Equatable {
    public let data: [OrderEventJSON]

    public init(data: [OrderEventJSON]) {
        self.data = data
    }
}

import CashierStore

/// One line of an order's event log, as `GET /v1/orders/{id}/events` shows it.
struct EventJSON: Encodable, Sendable {
    let sequence: Int64
    let kind: String
    let from: String?
    let to: String?
    let detail: String
    let body_sha256: String?
    let created: Int64

    init(_ event: OrderEvent) {
        sequence = event.sequence
        kind = event.kind.rawValue
        from = event.from?.rawValue
        to = event.to?.rawValue
        detail = event.detail
        body_sha256 = event.bodySHA256
        created = Int64(event.createdAt.timeIntervalSince1970)
    }

    init(sequence: Int64, kind: String, from: String?, to: String?, detail: String, body_sha256: String?, created: Int64) {
        self.sequence = sequence
        self.kind = kind
        self.from = from
        self.to = to
        self.detail = detail
        self.body_sha256 = body_sha256
        self.created = created
    }
}

/// `GET /v1/orders/{id}/events`'s answer: the whole log, oldest first.
struct EventPage: Encodable, Sendable {
    let data: [EventJSON]
}

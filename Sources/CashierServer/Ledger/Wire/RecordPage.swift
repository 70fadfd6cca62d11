/// One page of a list: `data`, and whether older records follow.
struct RecordPage<Item: Encodable & Sendable>: Encodable, Sendable {
    let data: [Item]
    let has_more: Bool
}

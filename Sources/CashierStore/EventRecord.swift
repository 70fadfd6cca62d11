import Cashier
import Foundation

/// What to append beside a change (or alone).
public struct EventRecord: Sendable {
    public var kind: EventKind
    public var detail: String
    public var bodySHA256: String?

    public init(kind: EventKind, detail: String = "{}", bodySHA256: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.bodySHA256 = bodySHA256
    }
}

extension EventRecord {
    /// The record with `fields` added to its detail (a flat JSON object of strings, as
    /// `JSONText.object` writes it; a number or boolean there is kept as its text, a nested value
    /// or `null` is dropped). `fields` win over what the detail already has.
    public func adding(_ fields: [String: String]) -> EventRecord {
        var merged: [String: String] = [:]
        if case .object(let members)? = try? JSONReader.parse(Array(detail.utf8)) {
            for (key, value) in members {
                switch value {
                case .string(let text), .number(let text): merged[key] = text
                case .bool(let flag): merged[key] = flag ? "true" : "false"
                case .object, .array, .null: break
                }
            }
        }
        for (key, value) in fields { merged[key] = value }
        return EventRecord(kind: kind, detail: JSONText.object(merged), bodySHA256: bodySHA256)
    }
}

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
    /// The record with `fields` added to its detail (a flat JSON object of strings).
    public func adding(_ fields: [String: String]) -> EventRecord {
        let object = (try? JSONSerialization.jsonObject(with: Data(detail.utf8))) as? [String: Any] ?? [:]
        var merged = object.mapValues { "\($0)" }
        for (key, value) in fields { merged[key] = value }
        return EventRecord(kind: kind, detail: JSONText.object(merged), bodySHA256: bodySHA256)
    }
}

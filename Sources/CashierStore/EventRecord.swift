/// What to append beside a change (or alone).
public struct EventRecord: Sendable {
    public var kind: String
    public var detail: String
    public var bodySHA256: String?

    public init(kind: String, detail: String = "{}", bodySHA256: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.bodySHA256 = bodySHA256
    }
}

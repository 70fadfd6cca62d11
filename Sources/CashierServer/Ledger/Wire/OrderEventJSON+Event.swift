import CashierStore
import CashierWire

extension OrderEventJSON {
    /// An entry of the order's log as the store keeps it.
    init(_ event: OrderEvent) {
        self.init(
            sequence: event.sequence, kind: event.kind.rawValue, from: event.from?.rawValue, to: event.to?.rawValue,
            detail: event.detail, body_sha256: event.bodySHA256, created: Int64(event.createdAt.timeIntervalSince1970))
    }
}

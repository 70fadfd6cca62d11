import Cashier
import CashierStore
import Foundation

/// What an order tells the providers besides its amount and number: the goods (from its line
/// items), its metadata (returned untouched in notifications, within each provider's limit),
/// and when it stops being payable.
enum OrderFieldsForProviders {
    /// The order's items with a positive price, as goods lines (discounts and sheet lines such as
    /// shipping are left out: the providers take no negative prices).
    static func goods(_ order: StoredOrder) -> [GoodsLine] {
        let items = order.lineItems
        return items.enumerated().compactMap { index, item in
            guard item.unitAmount.isPositive else { return nil }
            return GoodsLine(id: item.sku ?? "item-\(index + 1)", name: item.label, quantity: item.quantity, unitPrice: item.unitAmount)
        }
    }

    /// The metadata as compact JSON with sorted keys, when there is any and it fits in `limit`
    /// bytes once `measure`d (WeChat Pay v2 `attach`: 127 bytes; v3: 128; Alipay
    /// `passback_params`: 512 once URL-encoded). Metadata too long for the provider stays on the
    /// order, where the webhook carries it.
    static func metadata(_ order: StoredOrder, limit: Int, measure: (String) -> Int = { $0.utf8.count }) -> String? {
        let metadata = order.metadata  // decoded from the stored text on each read
        guard !metadata.isEmpty else { return nil }
        let text = JSONText.object(metadata)
        return measure(text) <= limit ? text : nil
    }

    /// When the provider should stop taking payment for the order: its expiry, but never sooner
    /// than `shortest` from now (WeChat Pay refuses a `time_expire` under a minute away; the
    /// server's expiry job closes the order at its own time either way).
    static func expiry(_ order: StoredOrder, now: Date, shortest: TimeInterval = 60) -> Date? {
        order.expiresAt.map { max($0, now.addingTimeInterval(shortest)) }
    }
}

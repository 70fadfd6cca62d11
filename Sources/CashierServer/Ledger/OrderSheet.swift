import Cashier
import CashierStore
import Foundation

/// What the payment sheet changes on an order, kept with it (``CashierStore/StoredOrder/sheetJSON``):
/// the goods as created, the shipping methods offered and the one chosen, and a coupon. The
/// order's items are the goods, the chosen method's line and the coupon's line; its total is
/// their sum — the server computes it, the app only names a method or a code.
struct OrderSheet: Codable, Equatable, Sendable {
    struct AppliedCoupon: Codable, Equatable, Sendable {
        let code: String
        let label: String
        /// Negative.
        let amount: Money
    }

    var goods: [LineItem]
    var shippingMethods: [ShippingMethod]
    var selectedShipping: String?
    var coupon: AppliedCoupon?
    /// A recurring, deferred or automatic-reload commitment, as Apple Pay JS's
    /// `{"recurringPaymentRequest": {…}}` (validated when the order was created).
    var commitment: String?
    /// Coupon codes sent that were not the merchant's (``ApplePaySheetService/maximumCouponGuesses``).
    var couponGuesses: Int?

    /// The sheet of an order that has none yet: its items are the goods.
    init(goods: [LineItem], shippingMethods: [ShippingMethod] = []) {
        self.goods = goods
        self.shippingMethods = shippingMethods
        self.selectedShipping = shippingMethods.first?.identifier
    }

    /// The order's lines: goods, then the chosen shipping method, then the coupon.
    func lines() throws -> [LineItem] {
        var lines = goods
        if let method = selectedMethod { lines.append(try method.lineItem()) }
        if let coupon { lines.append(try LineItem(label: coupon.label, unitAmount: coupon.amount, kind: .final)) }
        return lines
    }

    var selectedMethod: ShippingMethod? { shippingMethods.first { $0.identifier == selectedShipping } }

    /// The sum of ``lines()``.
    func total(in currency: Currency) throws -> Money {
        try Money.sum(try lines().map(\.amount), currency: currency)
    }

    /// The goods' sum (what a coupon takes a share of).
    func goodsTotal(in currency: Currency) throws -> Money {
        try Money.sum(goods.map(\.amount), currency: currency)
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    static func read(_ order: StoredOrder) -> OrderSheet {
        if let text = order.sheetJSON, let sheet = try? JSONDecoder().decode(OrderSheet.self, from: Data(text.utf8)) { return sheet }
        return OrderSheet(goods: order.lineItems)
    }
}

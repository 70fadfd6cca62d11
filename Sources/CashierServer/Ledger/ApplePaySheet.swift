import ApplePay
import Cashier
import CashierStore
import Foundation

/// The Apple Pay payment request for an order, built on the server: one summary item per order
/// line (`2 × Latte`, quantity times unit amount; discounts negative; `pending` where the line
/// is an estimate), the shipping methods the order offers with the chosen one first, the
/// contact fields the merchant requires, and the total labelled with the merchant's display
/// name — always the order's total, because the order's lines are the sheet's.
struct ApplePaySheet {
    let configuration: MerchantConfiguration.ApplePay

    func request(for order: StoredOrder) throws -> ApplePay.PaymentRequest {
        let sheet = OrderSheet.read(order)
        var items = try sheet.goods.map { item in
            try LineItem(
                label: item.quantity > 1 ? "\(item.quantity) × \(item.label)" : item.label, unitAmount: item.amount, kind: item.kind)
        }
        if let coupon = sheet.coupon { items.append(try LineItem(label: coupon.label, unitAmount: coupon.amount)) }
        var request = try ApplePay.PaymentRequest(
            merchantIdentifier: configuration.merchantIdentifier, countryCode: configuration.countryCode, items: items,
            totalLabel: configuration.displayName, supportedNetworks: configuration.supportedNetworks,
            merchantCapabilities: configuration.countryCode.alpha2 == "CN" || configuration.supportedNetworks.contains(.chinaUnionPay)
                ? [.supports3DS, .supportsEMV] : [.supports3DS],
            shippingMethods: sheet.shippingMethods,
            requiredBillingContactFields: configuration.requiredBillingContactFields,
            requiredShippingContactFields: configuration.requiredShippingContactFields, applicationData: Array(order.id.utf8))
        if let selected = sheet.selectedShipping, selected != request.selectedShippingMethod {
            _ = try request.selectShippingMethod(selected)
        }
        if let text = sheet.commitment, let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] {
            // Validated when the order was created; dates in the past are the processor's to refuse now.
            try request.commit(to: try ApplePay.Commitment(json: object, currency: order.total.currency, now: .distantPast))
        }
        guard try request.total == order.total else {
            throw PaymentError(
                .invalidRequest, provider: .applePay,
                "order \(order.id)'s lines add up to \(try request.total), not its total \(order.total)")
        }
        return request
    }
}

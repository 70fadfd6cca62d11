import Cashier
import CashierStore
import Foundation

/// Links to the hosted checkout page.
enum CheckoutLink {
    /// The short link an order's `checkout_url` gives: `{base}/c/{client_secret}` (the secret
    /// names its order), which leads to the page. Short enough for a QR code on a receipt.
    static func short(base: String, order: StoredOrder) -> String {
        base + "/c/" + order.clientSecret
    }

    /// The order a short link's secret names (`ord_…_secret_…` starts with the order's id).
    static func orderID(inSecret secret: String) -> String? {
        guard let range = secret.range(of: "_secret_"), secret.hasPrefix("ord_") else { return nil }
        return String(secret[..<range.lowerBound])
    }

    /// `path` as the access log may hold it: a short link's secret is the order's client secret
    /// (whoever reads it can read the order, and the payer's contact details on it), so only the
    /// order id it names is kept — `/c/ord_…_secret_…` — and anything else after `/c/` is left out.
    static func loggable(path: String) -> String {
        guard path.hasPrefix("/c/") else { return path }
        return "/c/" + (orderID(inSecret: String(path.dropFirst(3))).map { $0 + "_secret_…" } ?? "…")
    }

    /// `/pay/{id}?client_secret=…` (with `base` in front when given, `step` after the id: `/wechat`),
    /// plus `extra` query arguments.
    static func path(order: StoredOrder, extra: [(String, String)] = [], base: String = "", step: String = "") -> String {
        base + "/pay/\(order.id)\(step)?" + FormEncoding.encode([("client_secret", order.clientSecret)] + extra)
    }
}

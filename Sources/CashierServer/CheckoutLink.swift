import CashierStore
import Foundation

/// Links to the hosted checkout page.
enum CheckoutLink {
    /// `{base}/pay/{id}?client_secret=…`.
    static func url(base: String, order: StoredOrder, extra: [(String, String)] = []) -> String {
        path(order: order, extra: extra, base: base)
    }

    /// `/pay/{id}?client_secret=…` (with `base` in front when given), plus `extra` query arguments.
    static func path(order: StoredOrder, extra: [(String, String)] = [], base: String = "") -> String {
        let query = ([("client_secret", order.clientSecret)] + extra).map { "\($0.0)=\(encoded($0.1))" }.joined(separator: "&")
        return base + "/pay/\(order.id)?" + query
    }

    /// A query value percent-encoded (everything but unreserved characters).
    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

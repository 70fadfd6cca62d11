import Cashier
import Foundation

/// The bounds on every number the merchant API reads: anything outside is refused (400) before
/// it reaches arithmetic, the store or a provider.
enum RequestBounds {
    /// `expires_in`: one second to 30 days.
    static let expiresIn: ClosedRange<Int64> = 1...2_592_000
    /// An item's `amount_minor` (negative for a discount): at most 10¹² minor units either way.
    static let itemMinorUnits: ClosedRange<Int64> = -1_000_000_000_000...1_000_000_000_000
    /// An order's total: more than zero and at most 10¹² minor units.
    static let totalMinorUnits: ClosedRange<Int64> = 1...1_000_000_000_000
    /// An item's `quantity`.
    static let quantity: ClosedRange<Int64> = 1...100_000
    /// Items in one order.
    static let items = 100
    /// A refund's `amount_minor`.
    static let refundMinorUnits: ClosedRange<Int64> = 1...1_000_000_000_000
    /// `limit` on lists.
    static let listLimit: ClosedRange<Int> = 1...100
    /// An order's `description` and an item's `label`, in UTF-8 bytes: an order's own limit,
    /// WeChat Pay's for `body` (the document's `maxLength` counts characters; a longer text is a 422).
    static let textBytes = Order.descriptionLimit
    /// A refund's `reason`, in UTF-8 bytes (WeChat Pay's `refund_desc`).
    static let reasonBytes = 80

    /// The first characters of `text` that fit in `limit` UTF-8 bytes (never half a character).
    static func prefix(_ text: String, bytes limit: Int) -> String {
        var used = 0
        return String(
            text.prefix {
                used += $0.utf8.count
                return used <= limit
            })
    }

    /// `text` is an IPv4 or IPv6 address (what `client_ip` must be: WeChat Pay refuses anything else).
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// `text` is written as the document's decimal amounts are (`^-?[0-9]+(\.[0-9]+)?$`): what
    /// fails this is a 400; what passes and is refused after (precision, range) a 422.
    static func isDecimal(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let digit: (UInt8) -> Bool = { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let whole = bytes.prefix(while: digit)
        let rest = bytes.dropFirst(whole.count)
        guard !whole.isEmpty else { return false }
        if rest.isEmpty { return true }
        return rest.first == UInt8(ascii: ".") && rest.count > 1 && rest.dropFirst().allSatisfy(digit)
    }

    /// An `Idempotency-Key`'s length.
    static let idempotencyKeyLength: ClosedRange<Int> = 1...255
}

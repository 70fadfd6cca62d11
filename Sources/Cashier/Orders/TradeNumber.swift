public import Foundation

/// Merchant trade numbers (`out_trade_no`): unique per order, and acceptable to every provider.
///
/// WeChat Pay allows at most 32 characters of `[A-Za-z0-9_-|*]`; Alipay at most 64 of letters,
/// digits and underscores. The generator makes numbers that satisfy both: a prefix, the UTC
/// time to the second, and 12 random letters and digits, e.g. `C20261129112233K7Q2M9X4B1ZP`.
///
/// ```swift
/// let number = TradeNumber.generate()
/// try TradeNumber.validate(number, for: .wechat)
/// ```
public enum TradeNumber {
    /// The rules of one provider.
    public enum Rules: Sendable {
        /// ≤ 32 characters of letters, digits, `_`, `-`, `|`, `*`.
        case wechat
        /// ≤ 64 characters of letters, digits and `_`.
        case alipay
        /// Both at once (what `generate` produces).
        case every

        var maximumLength: Int {
            switch self {
            case .wechat, .every: 32
            case .alipay: 64
            }
        }

        func allows(_ byte: UInt8) -> Bool {
            let alphanumeric =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            switch self {
            case .wechat: return alphanumeric || "_-|*".utf8.contains(byte)
            case .alipay, .every: return alphanumeric || byte == UInt8(ascii: "_")
            }
        }
    }

    private static let randomAlphabet = Array("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ".utf8)

    /// A new trade number.
    /// - Parameters:
    ///   - prefix: up to 6 letters or digits, to tell environments or shops apart.
    ///   - date: the time to embed (the current time by default).
    /// - Returns: prefix + `yyyyMMddHHmmss` (UTC) + 12 random characters; at most 32 characters.
    public static func generate(prefix: String = "C", date: Date = Date()) -> String {
        precondition(
            prefix.count <= 6 && prefix.utf8.allSatisfy { Rules.every.allows($0) && $0 != UInt8(ascii: "_") },
            "a prefix is up to 6 letters or digits")
        return prefix + timestamp(date) + RandomText.string(count: 12, alphabet: randomAlphabet)
    }

    /// `true` when `number` is acceptable under `rules`.
    public static func isValid(_ number: String, for rules: Rules) -> Bool {
        (1...rules.maximumLength).contains(number.utf8.count) && number.utf8.allSatisfy(rules.allows)
    }

    /// Checks `number` against `rules`.
    /// - Throws: `MoneyError.invalidTradeNumber` saying which rule it breaks.
    public static func validate(_ number: String, for rules: Rules) throws {
        guard !number.isEmpty, number.utf8.count <= rules.maximumLength else {
            throw MoneyError(
                .invalidTradeNumber, "out_trade_no must be 1 to \(rules.maximumLength) characters, not \(number.utf8.count)")
        }
        guard number.utf8.allSatisfy(rules.allows) else {
            let allowed = rules == .wechat ? "letters, digits, _ - | *" : "letters, digits and _"
            throw MoneyError(.invalidTradeNumber, "out_trade_no '\(number)' may contain only \(allowed)")
        }
    }

    private static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.year, 4) + pad(parts.month, 2) + pad(parts.day, 2) + pad(parts.hour, 2) + pad(parts.minute, 2)
            + pad(parts.second, 2)
    }
}

import Foundation

/// Numbers and booleans as `JSONSerialization` gives them. On Linux it answers `true` to
/// `value is Bool` for the numbers 0 and 1 (and `as? Int` for `true`), so neither cast tells a
/// JSON `true` from `1`: the object's class does.
public enum JSONNumber {
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    /// Whether `value` was written `true` or `false`.
    public static func isBoolean(_ value: Any) -> Bool { type(of: value as AnyObject) == booleanClass }

    /// A whole number: not `true` or `false` (which `as? Int` reads as 1 and 0), not 2.5, not "8".
    public static func integer(_ value: Any) -> Int? { isBoolean(value) ? nil : value as? Int }

    /// A number, whole or not, that was not written `true` or `false`.
    public static func number(_ value: Any) -> Double? { isBoolean(value) ? nil : (value as? NSNumber)?.doubleValue }

    /// `true` or `false`, and nothing else (not 0 or 1).
    public static func boolean(_ value: Any) -> Bool? { isBoolean(value) ? value as? Bool : nil }

    /// A number written as a whole number, as a parser that maps JSON onto a 64-bit integer field
    /// takes it (WeChat Pay API v3's does): not `true`, and not `110.0`, `0.01` or `1e2` either —
    /// a price in yuan where fen were meant, or a float that came out `110.00000000000001`.
    public static func writtenInteger(_ value: Any) -> Int64? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        let type = String(cString: number.objCType)
        return type == "d" || type == "f" ? nil : value as? Int64
    }
}

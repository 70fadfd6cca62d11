import Foundation

/// Numbers and booleans as `JSONSerialization` gives them. On Linux it answers `true` to
/// `value is Bool` for the numbers 0 and 1 (and `as? Int` for `true`), so neither cast tells a
/// JSON `true` from `1`: the object's class does.
enum JSONNumber {
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    /// Whether `value` was written `true` or `false`.
    static func isBoolean(_ value: Any) -> Bool { type(of: value as AnyObject) == booleanClass }

    /// A whole number: not `true` or `false` (which `as? Int` reads as 1 and 0), not 2.5, not "8".
    static func integer(_ value: Any) -> Int? { isBoolean(value) ? nil : value as? Int }

    /// A number, whole or not, that was not written `true` or `false`.
    static func number(_ value: Any) -> Double? { isBoolean(value) ? nil : (value as? NSNumber)?.doubleValue }

    /// `true` or `false`, and nothing else (not 0 or 1).
    static func boolean(_ value: Any) -> Bool? { isBoolean(value) ? value as? Bool : nil }
}

import Foundation

extension JSONReader.Value {
    /// What `JSONSerialization.jsonObject(with:)` returned, as a ``JSONReader/Value``: for a
    /// document whose reading must stay `JSONSerialization`'s — the files it accepts (a trailing
    /// comma, a byte-order mark, UTF-16, nesting past 64 levels) and the words it refuses the
    /// others with — but which is walked as a typed value rather than as `Any`.
    ///
    /// Numbers become their shortest text (`8`, `8.0`, `1e+20`), so ``wholeNumber`` and
    /// ``double`` read them as `as? Int` and `NSNumber.doubleValue` did; `true` and `false`
    /// become ``bool(_:)``, never the numbers 1 and 0 (see ``JSONNumber``).
    ///
    /// ```swift
    /// let parsed = try JSONSerialization.jsonObject(with: Data(#"{"port": 8080,}"#.utf8))
    /// JSONReader.Value(jsonObject: parsed)?["port"]?.wholeNumber  // 8080
    /// ```
    /// - Parameter jsonObject: An object, array, string, number or `NSNull`, as
    ///   `JSONSerialization` gives them, at any depth.
    /// - Returns: nil when something in it is not one of those (a `Date`, a Swift struct).
    public init?(jsonObject: Any) {
        switch jsonObject {
        case let text as String: self = .string(text)
        case is NSNull: self = .null
        case let number as NSNumber:
            if JSONNumber.isBoolean(number) {
                self = .bool(number.boolValue)
            } else {
                switch String(cString: number.objCType) {
                case "d", "f": self = .number("\(number.doubleValue)")
                case "Q": self = .number("\(number.uint64Value)")
                default: self = .number("\(number.int64Value)")
                }
            }
        case let object as [String: Any]:
            var members: [String: Self] = [:]
            for (name, member) in object {
                guard let value = Self(jsonObject: member) else { return nil }
                members[name] = value
            }
            self = .object(members)
        case let array as [Any]:
            var elements: [Self] = []
            for element in array {
                guard let value = Self(jsonObject: element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        default: return nil
        }
    }
}

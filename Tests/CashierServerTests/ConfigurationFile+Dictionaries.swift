import Cashier
import Foundation
import Testing

@testable import CashierServer

/// Configuration written in a test as a Swift dictionary, read as the server reads a file that
/// holds it: written out and parsed back by `JSONSerialization`, so a number is the `NSNumber`
/// a file gives (not a Swift `Int` or `Bool`).
extension ConfigurationFile {
    static func object(_ dictionary: [String: Any]) throws -> Object {
        let parsed = try JSONSerialization.jsonObject(with: try JSONSerialization.data(withJSONObject: dictionary))
        return try #require(JSONReader.Value(jsonObject: parsed)?.object)
    }

    /// The checks ``init(contentsOf:environment:)`` makes, on `root`.
    init(_ root: [String: Any], _ reader: Reader) throws {
        try self.init(try Self.object(root), reader)
    }
}

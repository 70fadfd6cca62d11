import Foundation
import Testing

@testable import CashierServer

/// On Linux `JSONSerialization`'s 0 and 1 pass `is Bool` and its `true` passes `as? Int`; the
/// configuration's counter times refused 1 second, and a price of `true` minor units was 1.
@Suite struct JSONNumberTests {
    func parsed(_ text: String) throws -> Any {
        let object = try JSONSerialization.jsonObject(with: Data(("{\"v\":" + text + "}").utf8)) as? [String: Any]
        return try #require(object?["v"])
    }

    @Test func booleansAndNumbersAreToldApart() throws {
        for text in ["true", "false"] {
            let value = try parsed(text)
            #expect(JSONNumber.isBoolean(value) && JSONNumber.boolean(value) == (text == "true"))
            #expect(JSONNumber.integer(value) == nil && JSONNumber.number(value) == nil)
        }
        for (text, whole) in [("0", 0), ("1", 1), ("2", 2), ("-7", -7), ("800.0", 800)] {
            let value = try parsed(text)
            #expect(!JSONNumber.isBoolean(value) && JSONNumber.boolean(value) == nil, "\(text)")
            #expect(JSONNumber.integer(value) == whole && JSONNumber.number(value) == Double(whole), "\(text)")
        }
        for text in ["2.5", "1e30", #""8""#, "null", "[1]"] {
            #expect(JSONNumber.integer(try parsed(text)) == nil, "\(text)")
        }
        let fraction = try parsed("0.05")
        let text = try parsed(#""1""#)
        #expect(JSONNumber.number(fraction) == 0.05 && JSONNumber.number(text) == nil)
    }
}

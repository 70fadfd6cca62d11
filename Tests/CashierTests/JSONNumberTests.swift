import Cashier
import Foundation
import Testing

/// On Linux `JSONSerialization`'s 0 and 1 pass `is Bool` and its `true` passes `as? Int`; the
/// configuration's counter times refused 1 second, and a price of `true` minor units was 1. And
/// a sandbox that took 12.5 fen as 12 was kinder than WeChat Pay, which refuses it.
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

    @Test func anIntegerAsWrittenIsNotAFractionAFloatOrABoolean() throws {
        for (text, whole) in [("0", Int64(0)), ("1", 1), ("12", 12), ("-7", -7), ("9223372036854775807", .max)] {
            #expect(JSONNumber.writtenInteger(try parsed(text)) == whole, "\(text)")
        }
        for text in ["110.0", "0.01", "12.5", "1e2", "110.00000000000001", "18446744073709551615", "true", "false", #""12""#, "null"] {
            #expect(JSONNumber.writtenInteger(try parsed(text)) == nil, "\(text)")
        }
    }
}

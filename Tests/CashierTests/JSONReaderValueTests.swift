import Cashier
import Foundation
import Testing

/// A ``JSONReader/Value`` read as `JSONSerialization`'s `Any` was: the accessors answer as the
/// casts and ``JSONNumber`` did, whether the value came from ``JSONReader`` or from
/// `JSONSerialization` through ``JSONReader/Value/init(jsonObject:)``.
@Suite struct JSONReaderValueTests {
    /// JSONSerialization's reading of `text` as an array's only element.
    static func element(_ text: String) throws -> Any {
        try #require((try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [Any])?.first)
    }

    @Test(arguments: [
        "8", "8.0", "8.5", "1e2", "1E2", "-0", "-1.5e3", "8.00000000000000001", "9007199254740993", "99999999999999999999", "1e20",
        "-9223372036854775808", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "0.1",
        "1e-7", "true", "false", "null", #""8""#, "[8]", #"{"a":8}"#,
    ])
    func numbersAndBooleansReadAsJSONNumberReadsThem(text: String) throws {
        let element = try Self.element(text)
        let converted = try #require(JSONReader.Value(jsonObject: element))
        let parsed = try #require(try JSONReader.parse(Data("[\(text)]".utf8)).array?.first)
        for value in [converted, parsed] {
            #expect(value.wholeNumber == JSONNumber.integer(element), "\(text): \(value)")
            #expect(value.double == JSONNumber.number(element), "\(text): \(value)")
            #expect(value.bool == JSONNumber.boolean(element), "\(text): \(value)")
        }
    }

    @Test func listsAndObjectsReadAsTheirCastsDo() throws {
        let text =
            #"{"codes":["HKD","USD"],"none":[],"mixed":["HKD",1],"rows":[{"k":1},{}],"holes":[{"k":1},null],"map":{"g":null},"s":"x"}"#
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let converted = try #require(JSONReader.Value(jsonObject: object))
        // Whole numbers and strings have one text: both readers give the same value.
        #expect(converted == (try JSONReader.parse(Data(text.utf8))))
        for (name, member) in object {
            let value = try #require(converted[name])
            #expect(value.strings == member as? [String], "\(name)")
            #expect(value.objects?.count == (member as? [[String: Any]])?.count, "\(name)")
            #expect((value.object != nil) == (member is [String: Any]) && (value.array != nil) == (member is [Any]), "\(name)")
            #expect(value.string == member as? String, "\(name)")
        }
    }

    /// What JSONSerialization accepts beyond RFC 8259 (a trailing comma) converts like the rest;
    /// what it never gives does not convert.
    @Test func convertsWhatJSONSerializationGivesAndNothingElse() throws {
        let lenient = try JSONSerialization.jsonObject(with: Data(#"{"a":[1,"b",null,],}"#.utf8))
        #expect(JSONReader.Value(jsonObject: lenient) == .object(["a": .array([.number("1"), .string("b"), .null])]))
        #expect(JSONReader.Value(jsonObject: Date()) == nil)
        #expect(JSONReader.Value(jsonObject: ["a": [Date()]] as [String: Any]) == nil)
    }
}

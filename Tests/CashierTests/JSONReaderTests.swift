import Cashier
import Foundation
import Testing

/// The hot-path JSON reader agrees with JSONSerialization on what it accepts and refuses what
/// RFC 8259 refuses.
@Suite struct JSONReaderTests {
    /// JSONSerialization's reading of the same text, in the reader's terms.
    static func reference(_ object: Any) -> JSONReader.Value? {
        switch object {
        case let dictionary as [String: Any]:
            var members: [String: JSONReader.Value] = [:]
            for (key, value) in dictionary {
                guard let converted = reference(value) else { return nil }
                members[key] = converted
            }
            return .object(members)
        case let array as [Any]:
            let converted = array.compactMap(reference)
            return converted.count == array.count ? .array(converted) : nil
        case let string as String: return .string(string)
        case is NSNull: return .null
        default: return nil
        }
    }

    @Test func agreesWithJSONSerializationOnStringsAndStructure() throws {
        let documents = [
            #"{"applicationPrimaryAccountNumber":"4111111111111111","paymentData":{"eciIndicator":"5"},"x":[null,"a"]}"#,
            #"{"escapes":"\" \\ \/ \b \f \n \r \t \u00e9 \u4e2d \ud83e\udde7","nested":{"a":{"b":{"c":[[],{}]}}}}"#,
            #"  [ "spaces" , { } , [ ] ]  "#, #"{"dup":"first","dup":"last"}"#, #"{"utf8":"支付成功 ✓"}"#,
        ]
        for text in documents {
            let parsed = try JSONReader.parse(Data(text.utf8))
            let expected = Self.reference(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
            #expect(parsed == expected, "\(text)")
        }
    }

    /// The first name an object gives twice, at any depth; none in a document that repeats none.
    @Test func aRepeatedNameIsNamed() throws {
        let cases: [(String, String?)] = [
            (#"{"amount":"1.00","amount":"12.75"}"#, "amount"),
            (#"{"items":[{"label":"a","label":"b"}],"x":1}"#, "label"),
            (#"{"a":{"b":1},"c":{"b":2}}"#, nil),
            (#"[{"a":1},{"a":2}]"#, nil),
        ]
        for (text, repeated) in cases {
            let (value, name) = try JSONReader.parseNamingRepeats(Array(text.utf8))
            #expect(name == repeated, "\(text)")
            #expect(value == (try JSONReader.parse(Data(text.utf8))), "\(text)")
        }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parseNamingRepeats(Array(#"{"a":1,"a":"#.utf8)) }
    }

    @Test func numbersStayExactAndLiteralsParse() throws {
        let parsed = try JSONReader.parse(Data(#"{"a":4600,"b":-0,"c":1.5e3,"d":true,"e":false,"f":null,"big":9223372036854775807}"#.utf8))
        #expect(parsed["a"]?.int64 == 4600 && parsed["b"]?.int64 == 0 && parsed["c"] == .number("1.5e3") && parsed["c"]?.int64 == nil)
        #expect(parsed["d"] == .bool(true) && parsed["e"] == .bool(false) && parsed["f"] == .null)
        #expect(parsed["big"]?.int64 == Int64.max)
        #expect(try JSONReader.parse(Data(#"{"over":9223372036854775808}"#.utf8))["over"]?.int64 == nil)  // does not fit: not a whole Int64
        // FuzzJSONReader: a number beyond a Double is grammatical JSON, kept as its text (JSONSerialization refuses it).
        #expect(try JSONReader.parse(Data("28888e888888888888".utf8)) == .number("28888e888888888888"))
    }

    @Test(arguments: [
        "", "{", "}", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "[1,]", "01", "1.", ".5", "1e", "+1", "tru", "nul", #""unterminated"#,
        "\"tab\there\"", #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, "{} {}", #"{"a":1}x"#,
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func refusesWhatRFC8259Refuses(text: String) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Data(text.utf8)) }
    }

    @Test func refusesMalformedUTF8() {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }  // an encoded surrogate
    }
}

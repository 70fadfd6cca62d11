import Cashier
import Foundation
import Testing

/// The event log's JSON writer must give text any JSON parser reads back to the same strings.
@Suite struct JSONTextTests {
    @Test func everyAwkwardStringRoundTripsThroughAParser() throws {
        let values = [
            "", "plain", #"quote " and backslash \"#, "new\nline\ttab\rreturn", "\u{0}\u{1}\u{1F}", "支付成功 ✓ 🧧", "</script>",
            "a/b", "\u{7F}\u{2028}",
        ]
        var fields: [String: String] = [:]
        for (index, value) in values.enumerated() { fields["k\(index)" + value] = value }
        let text = JSONText.object(fields)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(parsed == fields)
        #expect(JSONText.object(["b": "2", "a": "1"]) == #"{"a":"1","b":"2"}"#)
        #expect(JSONText.object([:]) == "{}")
        #expect(JSONText.quoted("\u{1}") == #""\u0001""#)
    }

    @Test func headerNamesMatchWithoutCaseOnlyForLetters() {
        #expect(HTTPHeaders.nameMatches("Content-Length", "content-LENGTH"))
        #expect(!HTTPHeaders.nameMatches("Content-Length", "Content-Lengths"))
        #expect(!HTTPHeaders.nameMatches("@", "`"))  // 0x40 and 0x60 differ only in the case bit, but are not letters
        #expect(!HTTPHeaders.nameMatches("Idempotency-Key", "Idempotency_Key"))
        let headers: HTTPHeaders = ["wechatpay-serial": "ABC"]
        #expect(headers["Wechatpay-Serial"] == "ABC")
    }
}

import Cashier
import Foundation
import Testing

@testable import WeChatPay

@Suite struct V2XMLDocumentTests {
    @Test func parsesWhatWeChatSends() throws {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xml>
              <appid><![CDATA[wx2421b1c4370ec43b]]></appid>
              <total_fee>1</total_fee>
              <attach><![CDATA[支付测试]]></attach>
              <note>a &lt;b&gt; &amp; &quot;c&quot; &#x4E2D;&#25991;</note>
              <empty></empty>
              <short/>
              <split><![CDATA[x]]]]><![CDATA[>y]]></split>
            </xml>
            """
        let document = try WeChatPay.V2.XMLDocument(parsing: body)
        #expect(document.root == "xml")
        #expect(document["appid"] == "wx2421b1c4370ec43b")
        #expect(document["total_fee"] == "1")
        #expect(document["attach"] == "支付测试")
        #expect(document["note"] == "a <b> & \"c\" 中文")
        #expect(document["empty"] == "")
        #expect(document["short"] == "")
        #expect(document["split"] == "x]]>y")
        #expect(document.fields.map(\.name) == ["appid", "total_fee", "attach", "note", "empty", "short", "split"])
    }

    @Test func encodesAndRoundTrips() throws {
        let document = WeChatPay.V2.XMLDocument([("return_code", "SUCCESS"), ("tricky", "a]]>b<c>&"), ("text", "中文")])
        #expect(document.xmlString.hasPrefix("<xml><return_code><![CDATA[SUCCESS]]></return_code>"))
        #expect(try WeChatPay.V2.XMLDocument(parsing: document.xmlString) == document)
    }

    /// A parsed document is the same value as one built from its fields, whatever the body's
    /// spelling (CDATA or text, entity references, whitespace), and hashes the same.
    @Test func aParsedDocumentEqualsTheDocumentOfItsFields() throws {
        let body = "<?xml version=\"1.0\"?>\n<xml>\n <a>x &amp; y</a>\n <b><![CDATA[中文]]></b>\n <c/>\n</xml>\n"
        let parsed = try WeChatPay.V2.XMLDocument(parsing: body)
        let built = WeChatPay.V2.XMLDocument([("a", "x & y"), ("b", "中文"), ("c", "")])
        #expect(parsed == built)
        #expect(Set([parsed, built]).count == 1)
        #expect(parsed != WeChatPay.V2.XMLDocument([("a", "x & y"), ("b", "中文")]))
        #expect(parsed != WeChatPay.V2.XMLDocument(root: "root", [("a", "x & y"), ("b", "中文"), ("c", "")]))
        #expect(parsed.field("a", is: "x & y") && !parsed.field("a", is: "x &amp; y") && !parsed.field("d", is: ""))
        #expect(parsed["d"] == nil && parsed["c"] == "")
        #expect(parsed.dictionary == ["a": "x & y", "b": "中文", "c": ""])
    }

    /// Every value over `]`, `>` and `a` up to six characters: written as Foundation's
    /// `replacingOccurrences` wrote it (the terminator split between `]]` and `>`), and read back.
    @Test func cdataTerminatorsAreSplitExactlyAsBefore() throws {
        var values = [""]
        var layer = [""]
        for _ in 0..<6 {
            layer = layer.flatMap { value in ["]", ">", "a"].map { value + $0 } }
            values += layer
        }
        #expect(values.count == 1093)
        let differing = try values.filter { value in
            let document = WeChatPay.V2.XMLDocument([("v", value)])
            let old = "<xml><v><![CDATA[" + value.replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>") + "]]></v></xml>"
            guard document.xmlString == old else { return true }
            return try WeChatPay.V2.XMLDocument(parsing: document.xmlString)["v"] != value
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
    }

    static let hostile: [(String, String)] = [
        ("XXE", #"<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY x SYSTEM "file:///etc/passwd">]><xml><a>&x;</a></xml>"#),
        (
            "billion laughs",
            #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><xml><a>&lol2;</a></xml>"#
        ),
        ("external DTD", #"<!DOCTYPE xml SYSTEM "http://127.0.0.1/evil.dtd"><xml><a>1</a></xml>"#),
        ("entity without DTD", "<xml><a>&lol;</a></xml>"),
        ("comment", "<xml><!-- hi --><a>1</a></xml>"),
        ("nested element", "<xml><a><b>1</b></a></xml>"),
        ("attribute", #"<xml><a x="1">1</a></xml>"#),
        ("duplicate field", "<xml><total_fee>1</total_fee><total_fee>100</total_fee></xml>"),
        ("truncated", "<xml><a>1</a>"),
        ("mismatched close", "<xml><a>1</b></xml>"),
        ("trailing data", "<xml><a>1</a></xml><xml></xml>"),
        ("not xml", "{\"a\":1}"),
        ("empty", ""),
        ("bad name", "<xml><a-b>1</a-b></xml>"),
        ("processing instruction", "<xml><?php echo 1 ?><a>1</a></xml>"),
        ("unterminated CDATA", "<xml><a><![CDATA[1</a></xml>"),
    ]

    @Test(arguments: hostile)
    func refusesHostileInput(name: String, body: String) {
        let error = #expect(throws: PaymentError.self, "\(name)") { try WeChatPay.V2.XMLDocument(parsing: body) }
        #expect(error?.code == .malformedMessage)
        #expect(error?.message.hasPrefix("WeChat Pay XML refused:") == true)
    }

    @Test func refusesInvalidUTF8AndOversizeBodies() {
        let invalid = Array("<xml><a>".utf8) + [0xFF, 0xFE] + Array("</a></xml>".utf8)
        #expect(throws: PaymentError.self) { try WeChatPay.V2.XMLDocument(parsing: invalid) }
        let big = "<xml><a>" + String(repeating: "x", count: 70_000) + "</a></xml>"
        let error = #expect(throws: PaymentError.self) { try WeChatPay.V2.XMLDocument(parsing: big) }
        #expect(error?.message.contains("limit") == true)
        #expect(throws: Never.self) { try WeChatPay.V2.XMLDocument(parsing: big, sizeLimit: 100_000) }
    }

    @Test func controlCharactersXMLForbidsAreRefused() {
        // FuzzXML: a NUL in text (or as &#0;) parsed, then did not survive a round trip through CDATA.
        for body in [
            "<xml><a>x\u{0}y</a></xml>", "<xml><a>x&#0;y</a></xml>", "<xml><a><![CDATA[\u{1B}]]></a></xml>", "<xml><a>&#x1F;</a></xml>",
        ] {
            #expect(throws: (any Error).self, "\(body)") { try WeChatPay.V2.XMLDocument(parsing: Array(body.utf8)) }
        }
        #expect((try? WeChatPay.V2.XMLDocument(parsing: Array("<xml><a>tab\there\nline\r</a></xml>".utf8)))?["a"] == "tab\there\nline\r")
    }
}

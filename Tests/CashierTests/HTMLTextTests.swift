import Cashier
import Testing

@Suite struct HTMLTextTests {
    @Test func theFiveCharactersAreEscaped() {
        #expect(HTMLText.escape(#"<a href="x" title='y'>&</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
        #expect(HTMLText.escape("拿铁 ¥12.75") == "拿铁 ¥12.75")
    }

    /// A quote followed by a combining mark is one `Character` (`"\u{301}` renders as "́), but an
    /// HTML parser sees the quote and ends the attribute: escaping must work on scalars. Escaping
    /// over `Character`s left these unescaped (found by a security read of the alipay.wap form).
    @Test func aQuoteOrBracketWithACombiningMarkIsStillEscaped() {
        #expect(HTMLText.escape("\"\u{301} onmouseover=alert(1) x=\"") == "&quot;\u{301} onmouseover=alert(1) x=&quot;")
        #expect(HTMLText.escape("<\u{338}script>") == "&lt;\u{338}script&gt;")
        #expect(HTMLText.escape("'\u{20DD}") == "&#39;\u{20DD}")
        #expect(HTMLText.escape("&\u{300}amp;") == "&amp;\u{300}amp;")
        // Whatever the text, no scalar that ends content or an attribute survives.
        let marks: [Unicode.Scalar] = ["\u{300}", "\u{301}", "\u{338}", "\u{20DD}", "\u{FE0F}", "\u{200D}"]
        for special in ["\"", "'", "<", ">", "&"] {
            for mark in marks {
                let escaped = HTMLText.escape("a" + special + String(mark) + "b")
                #expect(!escaped.unicodeScalars.contains { "\"'<>".unicodeScalars.contains($0) }, "\(escaped.unicodeScalars.map(\.value))")
            }
        }
    }
}

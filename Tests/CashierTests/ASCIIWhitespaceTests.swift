import Cashier
import Testing

@Suite struct ASCIIWhitespaceTests {
    @Test func trimsWhatProtocolsCallWhitespaceAndNothingElse() {
        #expect(ASCIIWhitespace.trimmed(" \t Content-Type: text/plain \r\n") == "Content-Type: text/plain")
        #expect(ASCIIWhitespace.trimmed("\r\n") == "")
        #expect(ASCIIWhitespace.trimmed("") == "")
        #expect(ASCIIWhitespace.trimmed("a") == "a")
        #expect(ASCIIWhitespace.trimmed(" 中 文 ") == "中 文")
        // A no-break space or ideographic space is content in a header value, not padding.
        #expect(ASCIIWhitespace.trimmed("\u{00A0}x\u{3000}") == "\u{00A0}x\u{3000}")
        let line = "Name:  value\t"
        let value = line[line.index(after: line.firstIndex(of: ":")!)...]
        #expect(ASCIIWhitespace.trimmed(value) == "value")
    }
}

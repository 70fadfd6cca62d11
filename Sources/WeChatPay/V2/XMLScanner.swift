import Cashier

/// The byte scanner behind `WeChatPay.V2.XMLDocument`: one pass, no DOM, no Foundation XML.
struct XMLScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func failure(_ reason: String) -> PaymentError {
        PaymentError(.malformedMessage, provider: .wechatV2, "WeChat Pay XML refused: \(reason)")
    }

    static func isValidName(_ name: some Collection<UInt8>) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
    }

    mutating func document() throws -> (String, [WeChatPay.V2.XMLDocument.Field]) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a UTF-8 byte-order mark
        skipWhitespace()
        if startsWith("<?xml") {
            guard let end = find("?>") else { throw Self.failure("the XML declaration is not closed") }
            index = end + 2
            skipWhitespace()
        }
        try refuseMarkupDeclarations()
        let root = try openTag()
        var fields: [WeChatPay.V2.XMLDocument.Field] = []
        var seen = Set<String>()
        while true {
            skipWhitespace()
            try refuseMarkupDeclarations()
            guard index < bytes.count else { throw Self.failure("the document ends before </\(root)>") }
            if startsWith("</") {
                try closeTag(root)
                break
            }
            let name = try openTag()
            let value: String
            if bytes[index - 2] == UInt8(ascii: "/") {
                value = ""
            } else {
                value = try content(of: name)
            }
            guard seen.insert(name).inserted else { throw Self.failure("the field '\(name)' appears twice") }
            fields.append(.init(name: name, value: value))
            guard fields.count <= 256 else { throw Self.failure("more than 256 fields") }
        }
        skipWhitespace()
        guard index == bytes.count else { throw Self.failure("there is data after </\(root)>") }
        return (root, fields)
    }

    /// Reads `<name>` or `<name/>` and returns the name.
    private mutating func openTag() throws -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw Self.failure("an element was expected at byte \(index)") }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: ">") { end += 1 }
        guard end < bytes.count else { throw Self.failure("a tag is not closed") }
        var nameEnd = end
        if nameEnd > start, bytes[nameEnd - 1] == UInt8(ascii: "/") { nameEnd -= 1 }
        let name = bytes[start..<nameEnd]
        guard Self.isValidName(name) else {
            if name.contains(UInt8(ascii: " ")) || name.contains(UInt8(ascii: "=")) {
                throw Self.failure("attributes are not accepted")
            }
            throw Self.failure("'\(String(decoding: name.prefix(40), as: UTF8.self))' is not a field name")
        }
        index = end + 1
        return String(decoding: name, as: UTF8.self)
    }

    private mutating func closeTag(_ name: String) throws {
        let expected = Array("</\(name)>".utf8)
        guard startsWith(expected) else { throw Self.failure("<\(name)> is not closed by </\(name)>") }
        index += expected.count
    }

    /// Text and CDATA up to `</name>`, with entity references decoded.
    private mutating func content(of name: String) throws -> String {
        var value: [UInt8] = []
        while true {
            guard index < bytes.count else { throw Self.failure("<\(name)> is not closed") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if startsWith("<![CDATA[") {
                    guard let end = find("]]>", from: index + 9) else { throw Self.failure("a CDATA section is not closed") }
                    value += bytes[(index + 9)..<end]
                    index = end + 3
                    continue
                }
                if startsWith("</") {
                    try closeTag(name)
                    break
                }
                try refuseMarkupDeclarations()
                throw Self.failure("<\(name)> contains an element; WeChat Pay documents are flat")
            }
            if byte == UInt8(ascii: "&") {
                value += try entity()
                continue
            }
            value.append(byte)
            index += 1
        }
        guard let text = String(validating: value, as: UTF8.self) else {
            throw Self.failure("<\(name)> is not valid UTF-8")
        }
        return text
    }

    /// Decodes `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#NN;` `&#xHH;`; anything else is refused.
    private mutating func entity() throws -> [UInt8] {
        guard let end = bytes[index..<min(bytes.count, index + 12)].firstIndex(of: UInt8(ascii: ";")) else {
            throw Self.failure("a '&' is not a complete entity reference")
        }
        let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        index = end + 1
        switch name {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            let number: UInt32? =
                name.hasPrefix("#x")
                ? UInt32(name.dropFirst(2), radix: 16) : name.hasPrefix("#") ? UInt32(name.dropFirst(), radix: 10) : nil
            guard let number, let scalar = Unicode.Scalar(number) else {
                throw Self.failure("the entity '&\(name.prefix(10));' is not defined (DTD entities are refused)")
            }
            return Array(String(Character(scalar)).utf8)
        }
    }

    private mutating func refuseMarkupDeclarations() throws {
        if startsWith("<!DOCTYPE") || startsWith("<!doctype") || startsWith("<!ENTITY") {
            throw Self.failure("DOCTYPE and entity declarations are refused")
        }
        if startsWith("<!--") { throw Self.failure("comments are not accepted") }
        if startsWith("<?") { throw Self.failure("processing instructions are not accepted") }
        if startsWith("<!") && !startsWith("<![CDATA[") { throw Self.failure("markup declarations are refused") }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func startsWith(_ text: String) -> Bool {
        startsWith(Array(text.utf8))
    }

    private func startsWith(_ prefix: [UInt8]) -> Bool {
        bytes.count - index >= prefix.count && bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    private func find(_ text: String, from start: Int? = nil) -> Int? {
        let needle = Array(text.utf8)
        var position = start ?? index
        while position + needle.count <= bytes.count {
            if bytes[position] == needle[0], bytes[position..<(position + needle.count)].elementsEqual(needle) { return position }
            position += 1
        }
        return nil
    }
}

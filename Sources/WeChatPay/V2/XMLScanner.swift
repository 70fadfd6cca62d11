import Cashier

/// The byte scanner behind `WeChatPay.V2.XMLDocument`: one pass over the body, no DOM, no
/// Foundation XML, no strings — each field is a name and a value range in the body, and only
/// values with entity references or several CDATA sections are copied, decoded, after it.
struct XMLScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// The values that had to be decoded; a span into it starts at `bytes.count`.
    private var decoded: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func failure(_ reason: String) -> PaymentError {
        PaymentError(.malformedMessage, provider: .wechatV2, "WeChat Pay XML refused: \(reason)")
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }

    static func isValidName(_ name: some Collection<UInt8>) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy(isNameByte)
    }

    private static let less = UInt8(ascii: "<")
    private static let greater = UInt8(ascii: ">")
    private static let slash = UInt8(ascii: "/")
    private static let bang = UInt8(ascii: "!")
    private static let question = UInt8(ascii: "?")
    private static let ampersand = UInt8(ascii: "&")

    mutating func document() throws -> (String, [WeChatPay.V2.XMLDocument.Span], [UInt8]) {
        if matches([0xEF, 0xBB, 0xBF]) { index = 3 }  // a UTF-8 byte-order mark
        skipWhitespace()
        if matches(Array("<?xml".utf8)) {
            guard let end = find(Self.question, Self.greater, from: index) else { throw Self.failure("the XML declaration is not closed") }
            index = end + 2
            skipWhitespace()
        }
        try refuseMarkupDeclarations()
        let (rootStart, rootEnd, rootEmpty) = try openTag()
        let root = String(decoding: UnsafeBufferPointer(rebasing: bytes[rootStart..<rootEnd]), as: UTF8.self)
        guard !rootEmpty else { throw Self.failure("the root element is empty") }
        var fields: [WeChatPay.V2.XMLDocument.Span] = []
        fields.reserveCapacity(24)
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw Self.failure("the document ends before </\(root)>") }
            try refuseMarkupDeclarations()
            if index + 1 < bytes.count, bytes[index] == Self.less, bytes[index + 1] == Self.slash {
                try closeTag(rootStart, rootEnd)
                break
            }
            let (start, end, empty) = try openTag()
            let value = empty ? end..<end : try content(nameStart: start, nameEnd: end)
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard !fields.contains(where: { $0.name.count == name.count && bytes[$0.name].elementsEqual(name) }) else {
                throw Self.failure("the field '\(String(decoding: name, as: UTF8.self))' appears twice")
            }
            fields.append(.init(name: start..<end, value: value))
            guard fields.count <= 256 else { throw Self.failure("more than 256 fields") }
        }
        skipWhitespace()
        guard index == bytes.count else { throw Self.failure("there is data after </\(root)>") }
        return (root, fields, decoded)
    }

    /// Reads `<name>` or `<name/>`; returns the name's byte range and whether the element is empty.
    private mutating func openTag() throws -> (Int, Int, Bool) {
        guard index < bytes.count, bytes[index] == Self.less else { throw Self.failure("an element was expected at byte \(index)") }
        let start = index + 1
        var end = start
        while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
        guard end < bytes.count else { throw Self.failure("a tag is not closed") }
        guard end > start, end - start <= 64 else { throw Self.failure("an element has no valid name") }
        switch bytes[end] {
        case Self.greater:
            index = end + 1
            return (start, end, false)
        case Self.slash where end + 1 < bytes.count && bytes[end + 1] == Self.greater:
            index = end + 2
            return (start, end, true)
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
            throw Self.failure("attributes are not accepted")
        default:
            throw Self.failure("an element name has a character other than letters, digits and _")
        }
    }

    /// Reads `</name>` for the name at `start..<end`.
    private mutating func closeTag(_ start: Int, _ end: Int) throws {
        let length = end - start
        guard index + length + 3 <= bytes.count, bytes[index] == Self.less, bytes[index + 1] == Self.slash,
            bytes[index + 2 + length] == Self.greater,
            (0..<length).allSatisfy({ bytes[index + 2 + $0] == bytes[start + $0] })
        else {
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            throw Self.failure("<\(name)> is not closed by </\(name)>")
        }
        index += length + 3
    }

    /// Text and CDATA up to the closing tag, with entity references decoded: where the value's
    /// bytes are, in the body or (decoded) after it.
    private mutating func content(nameStart: Int, nameEnd: Int) throws -> Range<Int> {
        // The common cases — one CDATA section, or plain text without '&' — become a string directly.
        if matches(Self.cdataOpen), let end = find(UInt8(ascii: "]"), UInt8(ascii: "]"), Self.greater, from: index + 9),
            end + 4 < bytes.count, bytes[end + 3] == Self.less, bytes[end + 4] == Self.slash
        {
            let text = index + 9..<end
            try validate(text, nameStart, nameEnd)
            index = end + 3
            try closeTag(nameStart, nameEnd)
            return text
        }
        var plainEnd = index
        while plainEnd < bytes.count, bytes[plainEnd] != Self.less, bytes[plainEnd] != Self.ampersand { plainEnd += 1 }
        if plainEnd + 1 < bytes.count, bytes[plainEnd] == Self.less, bytes[plainEnd + 1] == Self.slash {
            let text = index..<plainEnd
            try validate(text, nameStart, nameEnd)
            index = plainEnd
            try closeTag(nameStart, nameEnd)
            return text
        }
        return try mixedContent(nameStart: nameStart, nameEnd: nameEnd)
    }

    /// Content that mixes text, entity references and several CDATA sections.
    private mutating func mixedContent(nameStart: Int, nameEnd: Int) throws -> Range<Int> {
        var value: [UInt8] = []
        while true {
            guard index < bytes.count else { throw Self.failure("an element is not closed") }
            let byte = bytes[index]
            if byte == Self.less {
                if matches(Self.cdataOpen) {
                    guard let end = find(UInt8(ascii: "]"), UInt8(ascii: "]"), Self.greater, from: index + 9) else {
                        throw Self.failure("a CDATA section is not closed")
                    }
                    value += bytes[(index + 9)..<end]
                    index = end + 3
                    continue
                }
                if index + 1 < bytes.count, bytes[index + 1] == Self.slash {
                    try closeTag(nameStart, nameEnd)
                    break
                }
                try refuseMarkupDeclarations()
                throw Self.failure("an element contains another element; WeChat Pay documents are flat")
            }
            if byte == Self.ampersand {
                value += try entity()
                continue
            }
            value.append(byte)
            index += 1
        }
        try value.withUnsafeBufferPointer { try Self.validate($0, nameBytes: bytes[nameStart..<nameEnd]) }
        let start = bytes.count + decoded.count
        decoded += value
        return start..<start + value.count
    }

    private func validate(_ range: Range<Int>, _ nameStart: Int, _ nameEnd: Int) throws {
        try Self.validate(UnsafeBufferPointer(rebasing: bytes[range]), nameBytes: bytes[nameStart..<nameEnd])
    }

    private static func validate(_ buffer: UnsafeBufferPointer<UInt8>, nameBytes: Slice<UnsafeBufferPointer<UInt8>>) throws {
        // XML 1.0 allows no control characters but tab, line feed and carriage return (§2.2),
        // written or as a character reference. One pass finds them and whether all is ASCII.
        var ascii = true
        for byte in buffer {
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                throw failure("<\(String(decoding: nameBytes, as: UTF8.self))> contains a control character XML does not allow")
            }
            if byte >= 0x80 { ascii = false }
        }
        guard ascii || UTF8Text.isValid(buffer) else {
            throw failure("<\(String(decoding: nameBytes, as: UTF8.self))> is not valid UTF-8")
        }
    }

    /// Decodes `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#NN;` `&#xHH;`; anything else is refused.
    private mutating func entity() throws -> [UInt8] {
        var end = index + 1
        while end < min(bytes.count, index + 12), bytes[end] != UInt8(ascii: ";") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else { throw Self.failure("a '&' is not a complete entity reference") }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self)
        index = end + 1
        switch name {
        case "lt": return [Self.less]
        case "gt": return [Self.greater]
        case "amp": return [Self.ampersand]
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

    private static let cdataOpen = Array("<![CDATA[".utf8)

    private mutating func refuseMarkupDeclarations() throws {
        guard index + 1 < bytes.count, bytes[index] == Self.less else { return }
        switch bytes[index + 1] {
        case Self.bang:
            if matches(Self.cdataOpen) { return }
            if matches(Array("<!--".utf8)) { throw Self.failure("comments are not accepted") }
            throw Self.failure("DOCTYPE and entity declarations are refused")
        case Self.question:
            throw Self.failure("processing instructions are not accepted")
        default:
            return
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func matches(_ prefix: [UInt8]) -> Bool {
        guard bytes.count - index >= prefix.count else { return false }
        for offset in 0..<prefix.count where bytes[index + offset] != prefix[offset] { return false }
        return true
    }

    /// The position of the first `a b` (or `a b c`) at or after `start`.
    private func find(_ a: UInt8, _ b: UInt8, _ c: UInt8? = nil, from start: Int) -> Int? {
        let length = c == nil ? 2 : 3
        var position = start
        while position + length <= bytes.count {
            if bytes[position] == a, bytes[position + 1] == b, c == nil || bytes[position + 2] == c! { return position }
            position += 1
        }
        return nil
    }
}

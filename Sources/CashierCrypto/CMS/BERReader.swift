/// Reads the tag-length-value elements of BER (and so DER) without interpreting them: enough to
/// find a structure's children by position. Indefinite lengths (`0x80`, ended by `00 00`) are
/// followed, as Apple Pay's CMS signatures use them. Every length is checked against the bytes.
struct BERReader {
    /// One element: where its header starts, where its contents are, where it ends.
    struct Element {
        let tag: UInt8
        let start: Int
        let contents: Range<Int>
        let end: Int
        var isConstructed: Bool { tag & 0x20 != 0 }
    }

    struct Malformed: Error {}

    let bytes: [UInt8]

    /// The element starting at `offset` (within `limit`).
    func element(at offset: Int, limit: Int, depth: Int = 0) throws -> Element {
        guard depth < 32, offset + 2 <= limit, limit <= bytes.count else { throw Malformed() }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { throw Malformed() }  // multi-byte tags do not occur in CMS
        var cursor = offset + 1
        let first = bytes[cursor]
        cursor += 1
        if first == 0x80 {
            // Indefinite: constructed only; children until an end-of-contents marker.
            guard tag & 0x20 != 0 else { throw Malformed() }
            var child = cursor
            while true {
                guard child + 2 <= limit else { throw Malformed() }
                if bytes[child] == 0, bytes[child + 1] == 0 {
                    return Element(tag: tag, start: offset, contents: cursor..<child, end: child + 2)
                }
                child = try element(at: child, limit: limit, depth: depth + 1).end
            }
        }
        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, cursor + count <= limit else { throw Malformed() }
            for index in 0..<count { length = length << 8 | Int(bytes[cursor + index]) }
            cursor += count
        }
        guard length <= limit - cursor else { throw Malformed() }
        return Element(tag: tag, start: offset, contents: cursor..<(cursor + length), end: cursor + length)
    }

    /// The children of a constructed element.
    func children(of parent: Element, depth: Int = 0) throws -> [Element] {
        guard parent.isConstructed else { throw Malformed() }
        var result: [Element] = []
        var offset = parent.contents.lowerBound
        while offset < parent.contents.upperBound {
            let child = try element(at: offset, limit: parent.contents.upperBound, depth: depth + 1)
            result.append(child)
            offset = child.end
        }
        return result
    }

    /// A DER header (tag and definite length) for `length` bytes of contents.
    static func header(tag: UInt8, length: Int) -> [UInt8] {
        if length < 0x80 { return [tag, UInt8(length)] }
        var digits: [UInt8] = []
        var rest = length
        while rest > 0 {
            digits.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [tag, 0x80 | UInt8(digits.count)] + digits
    }
}

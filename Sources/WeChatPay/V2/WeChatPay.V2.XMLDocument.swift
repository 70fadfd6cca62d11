import Cashier

extension WeChatPay.V2 {
    /// A flat WeChat Pay v2 XML document: `<xml><name><![CDATA[value]]></name>…</xml>`.
    ///
    /// The parser accepts exactly what WeChat sends — an optional XML declaration, one root
    /// element, and child elements holding text or CDATA — and refuses everything else with a
    /// reason: any DOCTYPE or entity declaration (so no XXE and no billion laughs), comments,
    /// processing instructions after the start, attributes, nested elements, duplicate fields,
    /// undefined entity references, invalid UTF-8, and bodies over the size limit.
    ///
    /// ```swift
    /// let document = try WeChatPay.V2.XMLDocument(parsing: body)
    /// document["out_trade_no"]
    /// WeChatPay.V2.XMLDocument(fields: [("return_code", "SUCCESS")]).xmlString
    /// ```
    public struct XMLDocument: Hashable, Sendable {
        /// The largest body accepted by default (WeChat's documents are a few kilobytes).
        public static let defaultSizeLimit = 64 * 1024

        /// The root element's name: `xml`, or `root` inside a refund notification's `req_info`.
        public let root: String
        /// The fields' names and values as bytes: a parsed body as received (the values that had
        /// entity references or several CDATA sections follow it, decoded). Strings are made only
        /// for the fields a caller reads; verifying a signature makes none.
        let storage: [UInt8]
        /// Where each field's name and value are in `storage`, in document order.
        let spans: [Span]

        /// One field's name and value in `storage`.
        typealias Span = FieldSpan

        /// One child element.
        public struct Field: Hashable, Sendable {
            public let name: String
            public let value: String

            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// A document to encode.
        /// - Precondition: names are letters, digits and `_` (checked when encoding).
        public init(root: String = "xml", fields: [Field]) {
            self.init(root: root, packing: fields.lazy.map { (name: $0.name, value: $0.value) })
        }

        /// A document of `(name, value)` pairs, packed straight into its buffer.
        init(root: String = "xml", packing fields: some Sequence<(name: String, value: String)>) {
            let (storage, spans) = FieldSpan.pack(fields)
            self.init(root: root, storage: storage, spans: spans)
        }

        init(root: String, storage: [UInt8], spans: [Span]) {
            self.root = root
            self.storage = storage
            self.spans = spans
        }

        /// A document from `(name, value)` pairs, in order.
        public init(root: String = "xml", _ pairs: [(String, String)]) {
            self.init(root: root, packing: pairs.lazy.map { (name: $0.0, value: $0.1) })
        }

        /// The fields in document order.
        public var fields: [Field] {
            spans.map { Field(name: text($0.name), value: text($0.value)) }
        }

        /// The value of the field `name`, or `nil`.
        public subscript(_ name: String) -> String? {
            span(named: name).map { text($0.value) }
        }

        /// `true` when the field `name` is present and holds exactly `value` — no string is made.
        func field(_ name: String, is value: StaticString) -> Bool {
            guard let span = span(named: name) else { return false }
            return storage[span.value].elementsEqual(UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
        }

        /// The first field named `name`, found by comparing bytes.
        func span(named name: String) -> Span? {
            var name = name
            return name.withUTF8 { wanted in
                storage.withUnsafeBufferPointer { buffer in
                    spans.first { span in
                        span.name.count == wanted.count && UnsafeBufferPointer(rebasing: buffer[span.name]).elementsEqual(wanted)
                    }
                }
            }
        }

        /// Bytes the parser has already checked as UTF-8 (or that came from a `String`).
        private func text(_ range: Range<Int>) -> String {
            String(decoding: storage[range], as: UTF8.self)
        }

        /// The fields as `(key, value)` pairs, for signing.
        public var pairs: [(key: String, value: String)] {
            spans.map { (key: text($0.name), value: text($0.value)) }
        }

        /// The fields as a dictionary.
        public var dictionary: [String: String] {
            Dictionary(spans.lazy.map { (text($0.name), text($0.value)) }, uniquingKeysWith: { first, _ in first })
        }

        /// Documents are equal when their roots and their fields, in order, are.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.root == rhs.root && lhs.fields == rhs.fields
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(root)
            hasher.combine(fields)
        }

        /// Parses a document.
        /// - Parameters:
        ///   - bytes: the body as received.
        ///   - sizeLimit: the largest body accepted.
        /// - Throws: `PaymentError` with code `.malformedMessage` and a reason.
        @inlinable
        public init(parsing bytes: some Collection<UInt8>, sizeLimit: Int = defaultSizeLimit) throws {
            self =
                try bytes.withContiguousStorageIfAvailable { try Self(buffer: $0, sizeLimit: sizeLimit) }
                ?? Array(bytes).withUnsafeBufferPointer { try Self(buffer: $0, sizeLimit: sizeLimit) }
        }

        @usableFromInline
        init(buffer: UnsafeBufferPointer<UInt8>, sizeLimit: Int) throws {
            guard buffer.count <= sizeLimit else {
                throw XMLScanner.failure("the body is \(buffer.count) bytes, over the \(sizeLimit)-byte limit")
            }
            var scanner = XMLScanner(buffer)
            let (root, spans, decoded) = try scanner.document()
            var storage = Array(buffer)
            storage += decoded
            self.init(root: root, storage: storage, spans: spans)
        }

        /// Parses a document from text.
        public init(parsing text: String, sizeLimit: Int = defaultSizeLimit) throws {
            try self.init(parsing: Array(text.utf8), sizeLimit: sizeLimit)
        }

        /// The document as XML, every value in CDATA.
        ///
        /// Written byte by byte: Foundation's `replacingOccurrences(of:with:)` bridged every value
        /// through `NSString` and was most of the cost of a request's body.
        public var xmlString: String {
            var out: [UInt8] = []
            out.reserveCapacity(spans.reduce(2 * root.utf8.count + 5) { $0 + 2 * $1.name.count + $1.value.count + 17 })
            func tag(_ name: some Sequence<UInt8>, closing: Bool) {
                out.append(UInt8(ascii: "<"))
                if closing { out.append(UInt8(ascii: "/")) }
                out.append(contentsOf: name)
                out.append(UInt8(ascii: ">"))
            }
            tag(root.utf8, closing: false)
            for span in spans {
                let name = storage[span.name]
                precondition(XMLScanner.isValidName(name), "'\(String(decoding: name, as: UTF8.self))' is not a WeChat Pay field name")
                tag(name, closing: false)
                out.append(contentsOf: Self.cdataStart)
                // "]]>" cannot appear inside CDATA: end the section and start another between "]]" and ">".
                var brackets = 0
                for byte in storage[span.value] {
                    if byte == UInt8(ascii: ">") && brackets >= 2 { out.append(contentsOf: Self.cdataSplit) }
                    brackets = byte == UInt8(ascii: "]") ? brackets + 1 : 0
                    out.append(byte)
                }
                out.append(contentsOf: Self.cdataEnd)
                tag(name, closing: true)
            }
            tag(root.utf8, closing: true)
            return String(decoding: out, as: UTF8.self)
        }

        private static let cdataStart = Array("<![CDATA[".utf8)
        private static let cdataSplit = Array("]]><![CDATA[".utf8)
        private static let cdataEnd = Array("]]>".utf8)
    }
}

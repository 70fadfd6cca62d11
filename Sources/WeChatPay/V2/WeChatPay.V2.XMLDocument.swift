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
        /// The fields in document order.
        public let fields: [Field]

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
            self.root = root
            self.fields = fields
        }

        /// A document from `(name, value)` pairs, in order.
        public init(root: String = "xml", _ pairs: [(String, String)]) {
            self.init(root: root, fields: pairs.map { Field(name: $0.0, value: $0.1) })
        }

        /// The value of the field `name`, or `nil`.
        public subscript(_ name: String) -> String? {
            let length = name.utf8.count
            return fields.first { $0.name.utf8.count == length && $0.name == name }?.value
        }

        /// The fields as `(key, value)` pairs, for signing.
        public var pairs: [(key: String, value: String)] {
            fields.map { (key: $0.name, value: $0.value) }
        }

        /// The fields as a dictionary.
        public var dictionary: [String: String] {
            Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
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
            (root, fields) = try scanner.document()
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
            out.reserveCapacity(fields.reduce(2 * root.utf8.count + 5) { $0 + 2 * $1.name.utf8.count + $1.value.utf8.count + 17 })
            func tag(_ name: String, closing: Bool) {
                out.append(UInt8(ascii: "<"))
                if closing { out.append(UInt8(ascii: "/")) }
                out.append(contentsOf: name.utf8)
                out.append(UInt8(ascii: ">"))
            }
            tag(root, closing: false)
            for field in fields {
                precondition(XMLScanner.isValidName(field.name.utf8), "'\(field.name)' is not a WeChat Pay field name")
                tag(field.name, closing: false)
                out.append(contentsOf: Self.cdataStart)
                // "]]>" cannot appear inside CDATA: end the section and start another between "]]" and ">".
                var brackets = 0
                for byte in field.value.utf8 {
                    if byte == UInt8(ascii: ">") && brackets >= 2 { out.append(contentsOf: Self.cdataSplit) }
                    brackets = byte == UInt8(ascii: "]") ? brackets + 1 : 0
                    out.append(byte)
                }
                out.append(contentsOf: Self.cdataEnd)
                tag(field.name, closing: true)
            }
            tag(root, closing: true)
            return String(decoding: out, as: UTF8.self)
        }

        private static let cdataStart = Array("<![CDATA[".utf8)
        private static let cdataSplit = Array("]]><![CDATA[".utf8)
        private static let cdataEnd = Array("]]>".utf8)
    }
}

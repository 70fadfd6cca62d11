/// A `multipart/form-data` body (RFC 7578): built to send, or read from a request.
///
/// Reading accepts what real clients send: the boundary from the `Content-Type` header's
/// `boundary` parameter (quoted or not) or, when the header names none — wechatpayv3 sends a bare
/// `multipart/form-data` header over a body that `requests` delimited itself —, from the body's
/// first line; parts with or without a `Content-Type`; CRLF line ends (a bare LF is refused, as
/// the RFC requires CRLF and a lenient reader would find delimiters inside binary files).
///
/// ```swift
/// var form = MultipartFormData()
/// form.append(name: "meta", contentType: "application/json", body: Array(meta.utf8))
/// form.append(name: "file", filename: "a.png", contentType: "image/png", body: png)
/// let request = HTTPRequest(method: "POST", url: url, headers: ["Content-Type": form.contentType], body: Data(form.encoded()))
/// let read = try MultipartFormData(body: request.body, contentType: form.contentType)
/// ```
public struct MultipartFormData: Sendable, Equatable {
    /// One part: a field (`name`) or a file (`name` and `filename`).
    public struct Part: Sendable, Equatable {
        /// The part's `Content-Disposition` `name`.
        public var name: String
        /// The part's `Content-Disposition` `filename`, for a file.
        public var filename: String?
        /// The part's own `Content-Type`, when it has one.
        public var contentType: String?
        /// The part's bytes.
        public var body: [UInt8]

        /// - Parameters:
        ///   - name: the field's name.
        ///   - filename: the file's name, for a file part.
        ///   - contentType: the part's media type, when it has one.
        ///   - body: the part's bytes.
        public init(name: String, filename: String? = nil, contentType: String? = nil, body: [UInt8]) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.body = body
        }
    }

    /// The delimiter between parts (without its leading `--`).
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// The most parts a body read here may have.
    public static let partLimit = 16

    /// An empty form with a random boundary (or the one given).
    /// - Parameter boundary: 1 to 70 characters that occur in no part.
    public init(boundary: String = "CashierFormBoundary" + RandomText.alphanumeric(count: 24)) {
        self.boundary = boundary
    }

    /// The `Content-Type` header for this form, naming its boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Adds a part.
    /// - Parameters:
    ///   - name: the field's name.
    ///   - filename: the file's name, for a file part.
    ///   - contentType: the part's media type; `nil` writes none (a plain field).
    ///   - body: the part's bytes.
    public mutating func append(name: String, filename: String? = nil, contentType: String? = nil, body: [UInt8]) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, body: body))
    }

    /// The first part named `name`.
    /// - Parameter name: the field's name.
    public func part(named name: String) -> Part? {
        parts.first { $0.name == name }
    }

    /// The text of every part that is not a file, by name (the first of a name repeated).
    public var fields: [String: String] {
        parts.reduce(into: [:]) { fields, part in
            if part.filename == nil, fields[part.name] == nil { fields[part.name] = String(decoding: part.body, as: UTF8.self) }
        }
    }

    /// The body as sent: each part behind `--boundary`, then `--boundary--`.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            if let filename = part.filename { head += "; filename=\"\(Self.quoted(filename))\"" }
            head += "\r\n"
            if let type = part.contentType { head += "Content-Type: \(type)\r\n" }
            head += "\r\n"
            out += Array(head.utf8)
            out += part.body
            out += Array("\r\n".utf8)
        }
        out += Array("--\(boundary)--\r\n".utf8)
        return out
    }

    /// A name or filename inside quotes: quotes and line breaks percent-encoded, as browsers do.
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    /// Reads a body.
    /// - Parameters:
    ///   - body: the request's bytes.
    ///   - contentType: the request's `Content-Type`; its `boundary` parameter, when given, must
    ///     be the body's (otherwise the body's first line names it).
    /// - Throws: `PaymentError.malformedMessage` saying what is wrong.
    public init(body: [UInt8], contentType: String?) throws {
        guard let type = contentType, Self.mediaType(type) == "multipart/form-data" else {
            throw PaymentError(.malformedMessage, "the Content-Type is not multipart/form-data")
        }
        let boundary = try Self.boundaryParameter(type) ?? Self.firstLineBoundary(body)
        guard (1...70).contains(boundary.utf8.count) else {
            throw PaymentError(.malformedMessage, "the multipart boundary must be 1 to 70 characters")
        }
        self.boundary = boundary
        let delimiter = Array("--\(boundary)".utf8)
        // The first delimiter opens the body (a preamble before it is allowed, and ignored).
        guard var cursor = Self.find(delimiter, in: body, from: 0) else {
            throw PaymentError(.malformedMessage, "the body holds no multipart delimiter --\(boundary)")
        }
        cursor += delimiter.count
        let next = Array("\r\n--\(boundary)".utf8)
        while true {
            if body[cursor...].starts(with: Array("--".utf8)) { return }  // the closing delimiter
            guard body[cursor...].starts(with: Array("\r\n".utf8)) else {
                throw PaymentError(.malformedMessage, "a multipart delimiter is not followed by CRLF")
            }
            cursor += 2
            guard let headersEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: cursor), headersEnd - cursor <= 8 * 1024 else {
                throw PaymentError(.malformedMessage, "a multipart part's headers do not end (or are over 8 KiB)")
            }
            let headers = String(decoding: body[cursor..<headersEnd], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let end = Self.find(next, in: body, from: contentStart) else {
                throw PaymentError(.malformedMessage, "a multipart part does not end with --\(boundary)")
            }
            guard parts.count < Self.partLimit else {
                throw PaymentError(.malformedMessage, "the body has more than \(Self.partLimit) parts")
            }
            parts.append(try Self.part(headers: headers, body: Array(body[contentStart..<end])))
            cursor = end + next.count
        }
    }

    /// `multipart/form-data` from `multipart/form-data; boundary=…`, lowercased.
    private static func mediaType(_ header: String) -> String {
        String(header.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The header's `boundary` parameter, unquoted; `nil` when it has none.
    private static func boundaryParameter(_ header: String) throws -> String? {
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// The boundary the body's first line names (`--boundary` then CRLF).
    private static func firstLineBoundary(_ body: [UInt8]) throws -> String {
        guard body.starts(with: Array("--".utf8)), let end = find(Array("\r\n".utf8), in: body, from: 2), end <= 72 else {
            throw PaymentError(
                .malformedMessage, "the Content-Type names no boundary and the body does not begin with one (--boundary and CRLF)")
        }
        return String(decoding: body[2..<end], as: UTF8.self)
    }

    /// A part from its header lines and bytes.
    private static func part(headers: String, body: [UInt8]) throws -> Part {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headers.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch field {
            case "content-disposition":
                for parameter in value.split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2 else { continue }
                    var text = pair[1].trimmingCharacters(in: .whitespaces)
                    if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
                    switch pair[0].trimmingCharacters(in: .whitespaces).lowercased() {
                    case "name": name = text
                    case "filename": filename = text
                    default: break
                    }
                }
            case "content-type": contentType = value
            default: break
            }
        }
        guard let name else { throw PaymentError(.malformedMessage, "a multipart part has no Content-Disposition name") }
        return Part(name: name, filename: filename, contentType: contentType, body: body)
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count - start >= needle.count, start >= 0 else { return nil }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var index = start
                let last = hay.count - pin.count
                while index <= last {
                    if hay[index] == first {
                        var matched = true
                        for offset in 1..<pin.count where hay[index + offset] != pin[offset] {
                            matched = false
                            break
                        }
                        if matched { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}

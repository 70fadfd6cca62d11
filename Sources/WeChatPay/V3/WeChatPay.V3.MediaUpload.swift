public import Cashier
import CashierCrypto
import Foundation

extension WeChatPay.V3 {
    /// A file to upload to WeChat Pay (`/v3/merchant/media/upload`, or a complaint's image to
    /// `/v3/merchant-service/images/upload`), checked as WeChat checks it before it is sent.
    ///
    /// The upload is `multipart/form-data` with two parts: `meta`, the JSON
    /// `{"filename":…,"sha256":…}` (the file's SHA-256 in hex), and `file`. **The request's
    /// signature covers the `meta` JSON only**, exactly as sent — not the multipart body, which is
    /// what SDKs that sign the whole body get wrong (wechatpay-guzzle-middleware#6).
    ///
    /// ```swift
    /// let upload = try WeChatPay.V3.MediaUpload(filename: "receipt.png", bytes: png, purpose: .complaintImage)
    /// let mediaID = try await client.uploadComplaintImage(upload)
    /// ```
    public struct MediaUpload: Sendable, Equatable {
        /// Which endpoint a file goes to, and so the limits WeChat holds it to.
        public enum Purpose: Sendable, Equatable {
            /// `/v3/merchant/media/upload`: JPG, BMP or PNG up to 5 MB; PDF up to 7.5 MB.
            case merchantMedia
            /// `/v3/merchant-service/images/upload`, the images a complaint's answer carries: JPG,
            /// BMP or PNG up to 2 MB.
            case complaintImage

            /// The endpoint's path.
            public var path: String {
                switch self {
                case .merchantMedia: "/v3/merchant/media/upload"
                case .complaintImage: "/v3/merchant-service/images/upload"
                }
            }

            /// The kinds of file the endpoint takes.
            public var kinds: [Kind] {
                switch self {
                case .merchantMedia: [.jpeg, .png, .bmp, .pdf]
                case .complaintImage: [.jpeg, .png, .bmp]
                }
            }

            /// The largest file of `kind` the endpoint takes, in bytes.
            /// - Parameter kind: the file's kind.
            public func limit(for kind: Kind) -> Int {
                switch (self, kind) {
                case (.complaintImage, _): 2 * 1024 * 1024
                case (.merchantMedia, .pdf): 7_864_320  // 7.5 MB
                case (.merchantMedia, _): 5 * 1024 * 1024
                }
            }
        }

        /// What a file is, by its first bytes (the name's extension must agree).
        public enum Kind: String, Sendable, CaseIterable {
            case jpeg, png, bmp, pdf

            /// The media type.
            public var mediaType: String {
                switch self {
                case .jpeg: "image/jpeg"
                case .png: "image/png"
                case .bmp: "image/bmp"
                case .pdf: "application/pdf"
                }
            }

            /// The extensions a name of this kind ends with.
            var extensions: [String] {
                switch self {
                case .jpeg: ["jpg", "jpeg"]
                case .png: ["png"]
                case .bmp: ["bmp"]
                case .pdf: ["pdf"]
                }
            }

            /// The kind `bytes` begin as, `nil` for none of these.
            /// - Parameter bytes: the file's first bytes (or all of it).
            public static func sniff(_ bytes: some Collection<UInt8>) -> Kind? {
                if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
                if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
                if bytes.starts(with: [0x42, 0x4D]) { return .bmp }
                if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
                return nil
            }
        }

        /// The file's name, as the `meta` JSON gives it.
        public let filename: String
        /// The file.
        public let bytes: [UInt8]
        /// What the file is.
        public let kind: Kind
        /// Where it goes.
        public let purpose: Purpose

        /// Checks a file as WeChat does: a name ending in an extension the endpoint takes, content
        /// of that kind, not empty and within the endpoint's size limit.
        /// - Parameters:
        ///   - filename: the file's name (`receipt.png`); at most 128 bytes, no quote, backslash or line break.
        ///   - bytes: the file.
        ///   - purpose: the endpoint it goes to.
        /// - Throws: `PaymentError.invalidRequest` saying what to fix.
        public init(filename: String, bytes: [UInt8], purpose: Purpose) throws {
            let allowed = purpose.kinds.map { $0.rawValue.uppercased() }.joined(separator: ", ")
            guard !filename.isEmpty, filename.utf8.count <= 128,
                !filename.contains(where: { $0 == "\"" || $0 == "\\" || $0.isNewline || $0 == "/" })
            else {
                throw Self.refused("the file name must be 1 to 128 bytes, without quotes, backslashes, slashes or line breaks")
            }
            let suffix = filename.split(separator: ".").last.map { $0.lowercased() } ?? ""
            guard filename.contains("."), let named = purpose.kinds.first(where: { $0.extensions.contains(suffix) }) else {
                throw Self.refused("\(filename) must end in the extension of a kind \(purpose.path) takes (\(allowed))")
            }
            guard !bytes.isEmpty else { throw Self.refused("\(filename) is empty") }
            guard let sniffed = Kind.sniff(bytes), sniffed == named else {
                throw Self.refused(
                    "\(filename) is named \(named.rawValue.uppercased()) but its content is "
                        + (Kind.sniff(bytes).map { $0.rawValue.uppercased() } ?? "none of \(allowed)"))
            }
            let limit = purpose.limit(for: named)
            guard bytes.count <= limit else {
                throw Self.refused(
                    "\(filename) is \(bytes.count) bytes; \(purpose.path) takes \(named.rawValue.uppercased()) up to \(limit)")
            }
            self.filename = filename
            self.bytes = bytes
            self.kind = named
            self.purpose = purpose
        }

        /// The file's SHA-256 in lowercase hex, as `meta` carries it.
        public var sha256: String { Hex.encode(DigestAlgorithm.sha256.hash(bytes)) }

        /// The `meta` JSON, exactly as sent and signed: `{"filename":"…","sha256":"…"}`.
        public var meta: String { #"{"filename":"\#(filename)","sha256":"\#(sha256)"}"# }

        /// The multipart body: `meta` (as `application/json`) then `file`.
        /// - Parameter boundary: the delimiter (random by default).
        public func form(boundary: String = "CashierFormBoundary" + RandomText.alphanumeric(count: 24)) -> MultipartFormData {
            var form = MultipartFormData(boundary: boundary)
            form.append(name: "meta", contentType: "application/json", body: Array(meta.utf8))
            form.append(name: "file", filename: filename, contentType: kind.mediaType, body: bytes)
            return form
        }

        static func refused(_ message: String) -> PaymentError {
            PaymentError(.invalidRequest, provider: .wechatV3, message)
        }
    }
}

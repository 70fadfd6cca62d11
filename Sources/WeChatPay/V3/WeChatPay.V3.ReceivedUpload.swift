import Cashier
import CashierCrypto
import Foundation

extension WeChatPay.V3 {
    /// A media upload as the gateway receives it (what a simulator or a test reads): the `meta`
    /// part's text — what the request's signature covers — and the `file` part.
    ///
    /// It accepts what real SDKs send: a `Content-Type` without a boundary (wechatpayv3: the
    /// boundary is read from the body's first line), a `meta` part with or without its own
    /// `Content-Type`, and `meta` keys in any order with or without spaces (gopay sorts them).
    ///
    /// ```swift
    /// let received = try WeChatPay.V3.ReceivedUpload(body: request.body, contentType: request.headers["Content-Type"])
    /// // verify Authorization over received.meta, then:
    /// let upload = try received.upload(for: .complaintImage)
    /// ```
    public struct ReceivedUpload: Sendable, Equatable {
        /// The `meta` part, byte for byte: the body the signature covers.
        public let meta: String
        /// `meta.filename`.
        public let filename: String
        /// `meta.sha256`, as given.
        public let sha256: String
        /// The `file` part's bytes.
        public let file: [UInt8]
        /// The `file` part's own `Content-Type`, when it has one.
        public let fileContentType: String?

        /// Reads a multipart upload.
        /// - Parameters:
        ///   - body: the request body.
        ///   - contentType: the request's `Content-Type` (a boundary parameter is optional).
        /// - Throws: `PaymentError.malformedMessage` naming what is missing.
        public init(body: [UInt8], contentType: String?) throws {
            let form = try MultipartFormData(body: body, contentType: contentType)
            guard let meta = form.part(named: "meta") else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the upload has no meta part")
            }
            guard let file = form.part(named: "file") else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the upload has no file part")
            }
            struct Meta: Decodable {
                let filename: String
                let sha256: String
            }
            guard let fields = try? JSONDecoder().decode(Meta.self, from: Data(meta.body)) else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, #"meta is not {"filename":…,"sha256":…}"#)
            }
            self.meta = String(decoding: meta.body, as: UTF8.self)
            filename = fields.filename
            sha256 = fields.sha256
            self.file = file.body
            fileContentType = file.contentType
        }

        /// The file, checked as the endpoint for `purpose` checks it: `meta.sha256` is the file's
        /// digest, and the name, content and size are what ``MediaUpload`` allows.
        /// - Parameter purpose: the endpoint it came to.
        /// - Throws: `PaymentError.signatureMismatch` when the digest differs (the file is not the
        ///   one `meta` names), `.invalidRequest` for a file the endpoint does not take.
        public func upload(for purpose: MediaUpload.Purpose) throws -> MediaUpload {
            let digest = Hex.encode(DigestAlgorithm.sha256.hash(file))
            guard digest == sha256.lowercased() else {
                throw PaymentError(.signatureMismatch, provider: .wechatV3, "meta.sha256 is not the file's SHA-256")
            }
            return try MediaUpload(filename: filename, bytes: file, purpose: purpose)
        }
    }
}

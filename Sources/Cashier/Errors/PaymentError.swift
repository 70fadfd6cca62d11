/// An error in talking to a payment provider or in a message from one.
///
/// Provider errors are mirrored faithfully: `providerCode` holds WeChat's `err_code` or v3
/// `code`, Alipay's `sub_code` (or `code`), and `providerMessage` the matching text. The
/// `description` is safe to log: it never holds keys, signatures, card data or bodies; the
/// extra `details` go only to `debugDescription`.
///
/// ```swift
/// catch let error as PaymentError where error.code == .signatureMismatch { reply(fail) }
/// ```
public struct PaymentError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The category of a failure; new categories may be added, so switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case signatureMismatch = "signature mismatch"
            case merchantMismatch = "merchant mismatch"
            case amountMismatch = "amount mismatch"
            case currencyMismatch = "currency mismatch"
            case malformedMessage = "malformed message"
            case replayed
            case unknownKey = "unknown key"
            case decryptionFailure = "decryption failure"
            case providerRejected = "provider rejected"
            case transport
            case invalidRequest = "invalid request"
            case invalidConfiguration = "invalid configuration"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A signature did not verify: forged, tampered, or checked with the wrong key.
        public static let signatureMismatch = Code(.signatureMismatch)
        /// appid, mch_id, app_id or seller is not this merchant's.
        public static let merchantMismatch = Code(.merchantMismatch)
        /// The amount differs from the stored order's.
        public static let amountMismatch = Code(.amountMismatch)
        /// The currency differs from the stored order's.
        public static let currencyMismatch = Code(.currencyMismatch)
        /// The message cannot be parsed (bad XML/JSON/form, missing field, refused DTD, too large).
        public static let malformedMessage = Code(.malformedMessage)
        /// A timestamp outside the allowed window (a replayed message).
        public static let replayed = Code(.replayed)
        /// No key or certificate for the serial or key hash named in the message.
        public static let unknownKey = Code(.unknownKey)
        /// Authenticated decryption failed.
        public static let decryptionFailure = Code(.decryptionFailure)
        /// The provider answered with a business or system error (see `providerCode`).
        public static let providerRejected = Code(.providerRejected)
        /// The network call failed or timed out; retrying with the same trade number is safe.
        public static let transport = Code(.transport)
        /// The caller's request breaks a rule before anything is sent.
        public static let invalidRequest = Code(.invalidRequest)
        /// Keys, ids or URLs are missing or wrong in the configuration.
        public static let invalidConfiguration = Code(.invalidConfiguration)

        public var description: String { base.rawValue }
    }

    /// The category.
    public let code: Code
    /// Which provider, when one is involved.
    public let provider: PaymentProvider?
    /// What went wrong and what to do; safe to log and to show a developer.
    public let message: String
    /// The provider's own code (`err_code`, v3 `code`, Alipay `sub_code`), verbatim.
    public let providerCode: String?
    /// The provider's own message (`err_code_des`, v3 `message`, Alipay `sub_msg`), verbatim.
    public let providerMessage: String?
    /// Extra context for debugging only (never secrets; may name fields and values).
    public let details: String?

    public init(
        _ code: Code,
        provider: PaymentProvider? = nil,
        _ message: String,
        providerCode: String? = nil,
        providerMessage: String? = nil,
        details: String? = nil
    ) {
        self.code = code
        self.provider = provider
        self.message = message
        self.providerCode = providerCode
        self.providerMessage = providerMessage
        self.details = details
    }

    public var description: String {
        var text = "PaymentError(\(code)" + (provider.map { ", \($0.rawValue)" } ?? "") + "): " + message
        if let providerCode { text += " [\(providerCode)" + (providerMessage.map { ": \($0)" } ?? "") + "]" }
        return text
    }

    public var debugDescription: String {
        details.map { description + " — " + $0 } ?? description
    }
}

/// An error from CashierCrypto.
///
/// The `description` is generic so that it can be logged safely; it never contains key
/// material, plaintext or signatures. `debugDescription` adds OpenSSL's own error text.
///
/// ```swift
/// do { _ = try RSAPrivateKey(pemRepresentation: pem) }
/// catch let error as CryptoError where error.code == .invalidKey { print(error) }
/// ```
public struct CryptoError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The category of a failure. New categories may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidKey = "invalid key"
            case invalidCertificate = "invalid certificate"
            case invalidInput = "invalid input"
            case invalidEncoding = "invalid encoding"
            case authenticationFailure = "authentication failure"
            case signatureVerificationFailure = "signature verification failure"
            case chainVerificationFailure = "certificate chain verification failure"
            case unsupportedAlgorithm = "unsupported algorithm"
            case internalFailure = "internal failure"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A key could not be parsed, or is of the wrong type or size.
        public static let invalidKey = Code(.invalidKey)
        /// A certificate could not be parsed.
        public static let invalidCertificate = Code(.invalidCertificate)
        /// An argument has the wrong length or shape (an IV, a tag, a key size).
        public static let invalidInput = Code(.invalidInput)
        /// Base64, hex or PEM text is malformed.
        public static let invalidEncoding = Code(.invalidEncoding)
        /// An AEAD tag did not match, or padding was wrong: the ciphertext or key is not genuine.
        public static let authenticationFailure = Code(.authenticationFailure)
        /// A signature (for example a CMS signature) does not verify.
        public static let signatureVerificationFailure = Code(.signatureVerificationFailure)
        /// A certificate chain does not lead to a trust anchor, or is not valid at the given time.
        public static let chainVerificationFailure = Code(.chainVerificationFailure)
        /// The algorithm or key type is not supported here.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// OpenSSL failed where it should not have (allocation, internal state).
        public static let internalFailure = Code(.internalFailure)

        public var description: String { base.rawValue }
    }

    /// The category of the failure.
    public let code: Code
    /// A short, safe explanation (never secret).
    public let reason: String
    /// OpenSSL's error queue at the time of the failure, for `debugDescription` only.
    public let openSSLErrors: [String]

    public init(_ code: Code, _ reason: String, openSSLErrors: [String] = []) {
        self.code = code
        self.reason = reason
        self.openSSLErrors = openSSLErrors
    }

    public var description: String { "CryptoError(\(code)): \(reason)" }

    public var debugDescription: String {
        openSSLErrors.isEmpty ? description : description + " [OpenSSL: " + openSSLErrors.joined(separator: "; ") + "]"
    }
}

/// The output of AES-GCM encryption: ciphertext and a 16-byte tag, kept apart.
///
/// Providers send them joined (`combined`): WeChat Pay v3 `resource.ciphertext` and Apple Pay
/// `paymentData.data` are both ciphertext followed by the tag.
public struct AESGCMSealedBox: Hashable, Sendable {
    /// The length of a GCM tag in bytes.
    public static let tagByteCount = 16

    /// The encrypted bytes, as long as the plaintext.
    public let ciphertext: [UInt8]
    /// The authentication tag.
    public let tag: [UInt8]

    public init(ciphertext: [UInt8], tag: [UInt8]) {
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// Splits ciphertext ‖ tag.
    /// - Throws: `CryptoError.invalidInput` when there are fewer than 16 bytes.
    public init(combined: some Collection<UInt8>) throws {
        let bytes = Array(combined)
        guard bytes.count >= Self.tagByteCount else {
            throw CryptoError(.invalidInput, "AES-GCM data is shorter than its 16-byte tag")
        }
        ciphertext = Array(bytes.dropLast(Self.tagByteCount))
        tag = Array(bytes.suffix(Self.tagByteCount))
    }

    /// Ciphertext followed by the tag.
    public var combined: [UInt8] { ciphertext + tag }
}

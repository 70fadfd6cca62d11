public import CashierCrypto

extension Alipay {
    /// Signs and verifies Alipay's `k=v&…` content.
    ///
    /// The rules: every parameter except `sign` (and, for notifications, `sign_type`), empty values
    /// dropped, names sorted by byte order, raw (not URL-encoded) values joined as `k=v&k=v`; the
    /// signature is base64 of RSASSA-PKCS1-v1_5 over the UTF-8 bytes.
    ///
    /// ```swift
    /// let signer = Alipay.Signer(privateKey: try RSAPrivateKey(pemRepresentation: appPrivateKey))
    /// let sign = try signer.signature(for: parameters, type: .rsa2)
    /// ```
    public struct Signer: Sendable {
        private let privateKey: RSAPrivateKey

        public init(privateKey: RSAPrivateKey) {
            self.privateKey = privateKey
        }

        /// The content that is signed: sorted, non-empty, without the `excluded` names.
        public static func content(_ parameters: [String: String], excluding excluded: Set<String> = ["sign"]) -> String {
            let fields = FormFields(parameters.lazy.map { (name: $0.key, value: $0.value) })
            return String(decoding: fields?.content(excluding: Array(excluded)) ?? [], as: UTF8.self)
        }

        /// The base64 signature of `parameters` (request signing keeps `sign_type`).
        public func signature(for parameters: [String: String], type: SignType) throws -> String {
            Base64.encode(try privateKey.signature(for: Self.content(parameters), scheme: type.scheme))
        }

        /// `true` when `sign` (base64) is Alipay's signature over `content`.
        public static func isValidSignature(_ sign: String, content: String, publicKey: RSAPublicKey, type: SignType) -> Bool {
            isValidSignature(sign, content: Array(content.utf8), publicKey: publicKey, type: type)
        }

        public static func isValidSignature(_ sign: String, content: [UInt8], publicKey: RSAPublicKey, type: SignType) -> Bool {
            guard let bytes = try? Base64.decode(sign) else { return false }
            return publicKey.isValidSignature(bytes, for: content, scheme: type.scheme)
        }
    }
}

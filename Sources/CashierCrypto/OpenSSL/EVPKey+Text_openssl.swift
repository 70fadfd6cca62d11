internal import COpenSSL

extension EVPKey {
    static let privateKeyLabels: Set<String> = ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"]
    static let publicKeyLabels: Set<String> = ["PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE"]

    /// A private key from PEM (PKCS#8, PKCS#1 or SEC1, with or without a preamble) or from
    /// bare base64 DER, the form the Alipay console hands out.
    static func privateKey(text: String) throws -> EVPKey {
        if text.contains("-----BEGIN") {
            return try privateKey(der: PEMDocument.first(in: text, labels: privateKeyLabels).derBytes)
        }
        return try privateKey(der: Array(Base64.decode(text)))
    }

    /// A public key from PEM (`PUBLIC KEY`, `RSA PUBLIC KEY` or a `CERTIFICATE`) or bare base64 DER.
    static func publicKey(text: String) throws -> EVPKey {
        if text.contains("-----BEGIN") {
            let document = try PEMDocument.first(in: text, labels: publicKeyLabels)
            switch document.label {
            case "RSA PUBLIC KEY": return try rsaPublicKey(pkcs1: document.derBytes)
            case "CERTIFICATE": return try X509Certificate(derRepresentation: document.derBytes).publicKeyBacking()
            default: return try publicKey(spki: document.derBytes)
            }
        }
        return try publicKey(der: Array(Base64.decode(text)))
    }

    /// A public key from DER: SubjectPublicKeyInfo, else PKCS#1 `RSAPublicKey`.
    static func publicKey(der: [UInt8]) throws -> EVPKey {
        if let key = try? publicKey(spki: der) { return key }
        if let key = try? rsaPublicKey(pkcs1: der) { return key }
        throw CryptoError(.invalidKey, "not a DER public key (SubjectPublicKeyInfo or PKCS#1)")
    }

    /// The public half of this key, as a key of its own.
    func publicOnly() throws -> EVPKey {
        try EVPKey.publicKey(spki: spkiDER())
    }

    func require(type: Int32, name: String) throws {
        guard baseID == type else {
            throw CryptoError(.invalidKey, "the key is not an \(name) key")
        }
    }
}

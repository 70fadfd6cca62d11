import Cashier
public import CashierCrypto
import Foundation

extension UnionPay {
    /// UnionPay's `signMethod=01` signatures: the rules, and the merchant's side of them.
    ///
    /// To sign: drop `signature` and every field with an empty value, sort the names (ASCII byte
    /// order, as Java's `TreeMap`), join raw values as `k=v&k=v`, take the lower-case hex of its
    /// SHA-256 (5.1.0) or SHA-1 (5.0.0), and sign those 64 (or 40) ASCII characters with
    /// RSASSA-PKCS1-v1_5 and the same digest; `signature` is the base64 of that.
    ///
    /// ```swift
    /// let signed = try UnionPay.Signer(key: signingKey).sign(["version": "5.1.0", "merId": "…", …])
    /// signed["certId"]     // the certificate's serial, in decimal
    /// signed["signature"]  // base64
    /// ```
    public struct Signer: Sendable {
        public let key: SigningKey
        public let version: Version

        public init(key: SigningKey, version: Version = .v5_1_0) {
            self.key = key
            self.version = version
        }

        /// The fields as sent: empty ones dropped, `version`, `signMethod` and `certId` set, and
        /// `signature` added.
        public func sign(_ fields: [String: String]) throws -> [String: String] {
            var signed = fields.filter { !$0.value.isEmpty && $0.key != "signature" }
            signed["version"] = version.rawValue
            signed["signMethod"] = "01"
            signed["certId"] = key.certID
            signed["signature"] = try Self.signature(for: signed, privateKey: key.privateKey, version: version)
            return signed
        }

        /// The sorted `k=v&…` string that is digested: every field but `signature`, empty
        /// values dropped unless `keepingEmpty` (the Java SDK keeps them when it checks an answer).
        public static func content(_ fields: [String: String], keepingEmpty: Bool = false) -> String {
            fields.filter { $0.key != "signature" && (keepingEmpty || !$0.value.isEmpty) }
                .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                .map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        }

        /// The lower-case hex digest of the content: what RSA signs.
        public static func digestHex(of content: String, version: Version) -> String {
            Hex.encode(version.digest.hash(Array(content.utf8)))
        }

        /// The base64 `signature` of `fields`.
        public static func signature(for fields: [String: String], privateKey: RSAPrivateKey, version: Version) throws -> String {
            let hex = digestHex(of: content(fields), version: version)
            return Base64.encode(try privateKey.signature(for: hex, scheme: version.scheme))
        }

        /// `true` when `signature` (base64) was made by `publicKey`'s private half over `fields`
        /// (with empty values dropped, or kept — either form, both needing the key).
        public static func isValidSignature(_ signature: String, for fields: [String: String], publicKey: RSAPublicKey, version: Version)
            -> Bool
        {
            guard let bytes = try? Base64.decodeBytes(signature), !bytes.isEmpty else { return false }
            func verifies(_ content: String) -> Bool {
                publicKey.isValidSignature(bytes, for: Array(digestHex(of: content, version: version).utf8), scheme: version.scheme)
            }
            if verifies(content(fields)) { return true }
            return fields.values.contains(where: \.isEmpty) && verifies(content(fields, keepingEmpty: true))
        }
    }
}

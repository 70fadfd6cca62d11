import Cashier
public import CashierCrypto
import Foundation

extension Alipay {
    /// The exact text Alipay signed in a JSON answer: the value of `"<node>"` at the top level.
    ///
    /// Alipay signs the raw bytes of the node as it sent them, so the node is found by a
    /// quote-aware scan of the text — strings and escapes are skipped, nesting is counted —
    /// never by decoding and re-serialising, which would change spacing, order and escapes.
    ///
    /// ```swift
    /// let node = try Alipay.ResponseNode(text: body, name: "alipay_trade_query_response")
    /// try node.verify(publicKey: alipayPublicKey)
    /// ```
    public struct ResponseNode: Sendable {
        /// The node's value, byte for byte as received.
        public let raw: String
        /// The top-level `sign`, when present.
        public let sign: String?
        /// The top-level `alipay_cert_sn` (certificate mode), when present.
        public let alipayCertSN: String?

        /// Finds `name` and `sign` at the top level of `text`.
        /// - Throws: `PaymentError.malformedMessage` when the text is not a JSON object or has no such node.
        public init(text: String, name: String) throws {
            let bytes = Array(text.utf8)
            var scanner = JSONScanner(bytes: bytes)
            var found: Range<Int>?
            var sign: String?
            var certSN: String?
            func string(_ value: Range<Int>) -> String? {
                (try? JSONSerialization.jsonObject(with: Data(bytes[value]), options: .fragmentsAllowed)) as? String
            }
            try scanner.topLevelMembers { key, value in
                if key == name { found = value }
                if key == "sign" { sign = string(value) }
                if key == "alipay_cert_sn" { certSN = string(value) }
            }
            guard let found else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the answer has no \(name) node")
            }
            raw = String(decoding: bytes[found], as: UTF8.self)
            self.sign = sign
            self.alipayCertSN = certSN
        }

        /// Verifies `sign` over the raw node.
        /// - Throws: `PaymentError.signatureMismatch`.
        public func verify(publicKey: RSAPublicKey, signType: SignType = .rsa2) throws {
            guard let sign, Signer.isValidSignature(sign, content: raw, publicKey: publicKey, type: signType) else {
                throw PaymentError(.signatureMismatch, provider: .alipay, "the answer's signature does not verify over its response node")
            }
        }
    }
}

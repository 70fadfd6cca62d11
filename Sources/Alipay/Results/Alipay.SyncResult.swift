import Cashier
public import CashierCrypto
import Foundation

extension Alipay {
    /// The `result` the Alipay SDK hands the app after paying, verified on the server.
    ///
    /// Two shapes: the open-API JSON (`{"alipay_trade_app_pay_response": {…}, "sign": "…"}`,
    /// verified over the raw response node), and the legacy `mobile.securitypay.pay` string
    /// (`partner="…"&…&success="true"&sign_type="RSA"&sign="…"`, verified over everything before
    /// `&sign_type`, with the signature taken from between its quotes — it ends in `=`).
    public enum SyncResult {
        /// Verifies either shape.
        /// - Returns: the verified content (the response node, or the signed part of the legacy string).
        /// - Throws: `PaymentError.signatureMismatch` or `.malformedMessage`.
        @discardableResult
        public static func verify(_ result: String, publicKey: RSAPublicKey) throws -> String {
            let trimmed = result.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix("{") {
                let node = try ResponseNode(text: trimmed, name: "alipay_trade_app_pay_response")
                try node.verify(publicKey: publicKey, signType: .rsa2)
                return node.raw
            }
            return try verifyLegacy(trimmed, publicKey: publicKey)
        }

        /// Verifies a legacy result string.
        public static func verifyLegacy(_ result: String, publicKey: RSAPublicKey) throws -> String {
            guard let signTypeRange = result.range(of: "&sign_type=\""), let signRange = result.range(of: "&sign=\"", options: .backwards),
                signRange.lowerBound > signTypeRange.lowerBound, result.hasSuffix("\"")
            else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the result string has no sign_type and sign in quotes")
            }
            let content = String(result[..<signTypeRange.lowerBound])
            let declared = String(result[signTypeRange.upperBound..<result[signTypeRange.upperBound...].firstIndex(of: "\"")!])
            let signature = String(result[signRange.upperBound..<result.index(before: result.endIndex)])
            guard let type = SignType(rawValue: declared) else {
                throw PaymentError(.signatureMismatch, provider: .alipay, "unknown sign_type \(declared.prefix(10))")
            }
            guard Signer.isValidSignature(signature, content: content, publicKey: publicKey, type: type) else {
                throw PaymentError(.signatureMismatch, provider: .alipay, "the result string's \(type.rawValue) signature does not verify")
            }
            return content
        }
    }
}

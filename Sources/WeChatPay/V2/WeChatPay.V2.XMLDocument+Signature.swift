import Cashier
import CashierCrypto

extension WeChatPay.V2.XMLDocument {
    /// Checks `return_code`, then the `sign` field with `type` — the sign type the order was
    /// placed with. A `sign_type` field naming another type is refused, so a message cannot
    /// choose a weaker check than the merchant's.
    /// - Throws: `PaymentError` `.providerRejected` or `.signatureMismatch`.
    public func verifySignature(signer: WeChatPay.V2.Signer, type: WeChatPay.V2.SignType) throws {
        guard field("return_code", is: "SUCCESS") else {
            throw PaymentError(
                .providerRejected, provider: .wechatV2, "return_code is not SUCCESS", providerCode: self["return_code"],
                providerMessage: self["return_msg"])
        }
        guard let sign = span(named: "sign")?.value, !sign.isEmpty else {
            throw PaymentError(.signatureMismatch, provider: .wechatV2, "the document is not signed")
        }
        if let declared = self["sign_type"], WeChatPay.V2.SignType(field: declared) != type {
            throw PaymentError(
                .signatureMismatch, provider: .wechatV2,
                "sign_type is \(declared.prefix(20)) but the order was placed with \(type.rawValue)")
        }
        guard ConstantTime.equals(signer.signatureBytes(for: self, type: type), storage[sign]) else {
            throw PaymentError(.signatureMismatch, provider: .wechatV2, "the \(type.rawValue) signature does not verify with this API key")
        }
    }
}

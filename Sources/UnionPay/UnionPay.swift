import Cashier

/// China UnionPay's online gateway (全渠道, UPOP / ACP), server side: version 5.1.0 messages
/// signed with the merchant's certificate and verified with the certificate UnionPay puts in each
/// message, the raw `k=v&…` answers, consume (`tn` for the app's plugin), query, undo, refund,
/// back notifications and the reconciliation file.
///
/// The merchant's private key never leaves the server: the app receives only the `tn`, which
/// `UPAPayPlugin` (Apple Pay) or `UPPaymentControl` (云闪付) turns into a payment.
///
/// ```swift
/// let key = try UnionPay.SigningKey(pkcs12: pfx, password: "000000")
/// let verifier = try UnionPay.Verifier(rootPEM: root, middlePEM: middle)
/// let client = UnionPay.Client(merchantID: "777290058110048", signingKey: key, verifier: verifier)
/// let answer = try await client.consume(UnionPay.ConsumeRequest(orderID: "C20261206001", amount: total, backURL: notifyURL))
/// ```
public enum UnionPay {
    /// The provider named in the `PaymentError`s this module throws (every message also starts
    /// with "UnionPay").
    static let provider: PaymentProvider? = .unionpay

    /// ISO 4217 numeric code of the yuan, the only `currencyCode` a domestic merchant uses.
    public static let currencyCodeCNY = "156"
}

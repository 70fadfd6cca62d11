public import Foundation

/// What a wallet said when it returned to the app. Only "cancelled" ends a payment without
/// asking the server; everything else — success included — is confirmed by the server.
public enum WalletOutcome: Sendable, Equatable {
    /// `BaseResp.errCode` from WeChat's `onResp`: 0 success, -1 error, -2 cancelled.
    case wechat(errCode: Int, errStr: String? = nil)
    /// Alipay's callback (or the `safepay` URL's result): `resultStatus`, `memo`, `result`.
    case alipay(resultStatus: String, memo: String = "", result: String = "")
    /// The Apple Pay sheet authorised: the `PKPayment` as JSON, which `CashierClient.pay(orderID:clientSecret:method:launcher:timeout:)`
    /// sends to the server (the sheet completes with the status the server answers).
    case applePayAuthorized(paymentJSON: Data)
    /// The Apple Pay adapter already sent the token with ``CashierClient/authorizeApplePay(orderID:clientSecret:paymentJSON:)``
    /// from `didAuthorizePayment` and completed the sheet with the server's status (the PassKit way).
    case applePayCompleted(ApplePayAuthorization)
    /// The Apple Pay sheet was dismissed.
    case applePayDismissed
    /// The payer was shown a QR code (Native/precreate) or a web page: only the server knows.
    case qrCodeShown
    /// UnionPay's plugin returned (`UPAPayPlugin`, `UPPaymentControl`).
    case unionPay(UnionPayResult)

    /// How to treat it.
    public enum Interpretation: Sendable, Equatable {
        case cancelled
        /// The wallet says paid: the server must still confirm.
        case reportedSuccess
        /// The wallet says it failed (the server is still asked: the money may have moved).
        case reportedFailure
        /// The wallet does not know (Alipay 8000/6004, network errors, QR codes).
        case unknown
    }

    public var interpretation: Interpretation {
        switch self {
        case .wechat(let code, _): code == 0 ? .reportedSuccess : (code == -2 ? .cancelled : .reportedFailure)
        case .alipay(let status, _, _):
            switch status {
            case "9000": .reportedSuccess
            case "6001": .cancelled
            case "4000", "5000": .reportedFailure
            default: .unknown  // 8000 processing, 6002 network, 6004 unknown
            }
        case .applePayAuthorized: .reportedSuccess
        case .applePayCompleted(let answer): answer.status == 0 ? .reportedSuccess : .reportedFailure
        case .applePayDismissed: .cancelled
        case .qrCodeShown: .unknown
        case .unionPay(let result): result.interpretation
        }
    }
}

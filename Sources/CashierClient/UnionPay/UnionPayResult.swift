public import Foundation

/// What UnionPay's plugin said when it returned to the app (`UPPayResult`, or 云闪付's callback
/// URL). For display only: the server's back notification or query decides whether money moved.
public struct UnionPayResult: Sendable, Equatable {
    /// `UPPaymentResultStatus`.
    public enum Status: String, Sendable {
        case success
        case failure
        case cancel
        /// The transaction was sent, then cancelled: its state is unknown (ask the server).
        case unknownCancel = "unknown_cancel"
    }

    public let status: Status
    /// `errorDescription`: UnionPay's text and a 7-digit code, e.g. `可用余额不足[1000051]`.
    public let errorDescription: String?
    /// `otherInfo`: a discount, e.g. `currency=元&order_amt=20.00&pay_amt=15.00` — show the
    /// payer both amounts when present.
    public let otherInfo: String?

    public init(status: Status, errorDescription: String? = nil, otherInfo: String? = nil) {
        self.status = status
        self.errorDescription = errorDescription
        self.otherInfo = otherInfo
    }

    /// How Cashier treats it: only a cancel ends the payment without asking the server.
    public var interpretation: WalletOutcome.Interpretation {
        switch status {
        case .success: .reportedSuccess
        case .failure: .reportedFailure
        case .cancel: .cancelled
        case .unknownCancel: .unknown
        }
    }

    /// 云闪付's (`UPPaymentControl`'s) return URL, `<scheme>://uppayresult?code=success&data=…`
    /// (`code` is `success`, `fail` or `cancel`; `data` is signed JSON the server may check, which
    /// Cashier leaves to the server's query). `nil` for any other URL.
    public init?(callbackURL url: URL) {
        guard url.host == "uppayresult", let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
            let code = items.first(where: { $0.name == "code" })?.value
        else { return nil }
        self.init(code: code)
    }

    /// `UPPaymentControl`'s `handlePaymentResult` code: `success`, `fail` or `cancel`.
    public init(code: String) {
        switch code {
        case "success": self.init(status: .success)
        case "cancel": self.init(status: .cancel)
        default: self.init(status: .failure, errorDescription: code == "fail" ? nil : code)
        }
    }
}

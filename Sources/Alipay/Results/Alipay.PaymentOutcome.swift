extension Alipay {
    /// What the Alipay SDK's `resultStatus` says, and whether the server must still confirm.
    ///
    /// The app never takes this for "paid": every outcome but `cancelled` is confirmed with the
    /// server, which trusts only a verified notification or its own query.
    public enum PaymentOutcome: Sendable, Equatable {
        /// 9000: the SDK says the payment succeeded.
        case succeeded
        /// 8000 (processing) or 6004 (result unknown).
        case pending
        /// 4000: the payment failed.
        case failed
        /// 5000: a repeated request.
        case duplicate
        /// 6001: the payer cancelled.
        case cancelled
        /// 6002: the network failed.
        case networkError
        /// Any other code.
        case unknown(String)

        public init(resultStatus: String) {
            switch resultStatus {
            case "9000": self = .succeeded
            case "8000", "6004": self = .pending
            case "4000": self = .failed
            case "5000": self = .duplicate
            case "6001": self = .cancelled
            case "6002": self = .networkError
            default: self = .unknown(resultStatus)
            }
        }

        /// `true` unless the payer cancelled: ask the server before telling the payer anything.
        public var mustConfirmWithServer: Bool { self != .cancelled }
    }
}

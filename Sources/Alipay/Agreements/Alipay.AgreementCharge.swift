public import Cashier

extension Alipay {
    /// What `alipay.trade.pay` under an agreement answered (``Client/agreementPay(outTradeNo:total:subject:agreementNo:product:notifyURL:extras:)``).
    public enum AgreementCharge: Sendable, Equatable {
        /// `10000`: paid at once.
        case paid(amount: Money, tradeNo: String)
        /// `10003`: accepted, the payer's side still working; query the trade (or wait for its notification).
        case waiting(tradeNo: String?)
        /// `40004`: refused; nothing moved.
        case declined(AgreementDecline)
    }

    /// Why Alipay refused a charge under an agreement: its `sub_code` and `sub_msg`, and what they mean.
    public struct AgreementDecline: Sendable, Equatable, Error {
        /// What a refusal means for the next attempt.
        public enum Reason: Sendable, Equatable {
            /// `ACQ.CYCLE_PAY_DATE_NOT_MATCH`: not in the period's window, or the period is already paid.
            case outOfPeriod
            /// `ACQ.BUYER_BALANCE_NOT_ENOUGH`, `ACQ.BUYER_BANKCARD_BALANCE_NOT_ENOUGH`.
            case insufficientBalance
            /// `ACQ.AGREEMENT_NOT_EXIST`, `ACQ.AGREEMENT_INVALID`, `ACQ.AGREEMENT_STATUS_NOT_NORMAL`,
            /// `ACQ.AGREEMENT_ERROR`: the agreement is gone or was never in force.
            case agreementEnded
            /// `ACQ.CYCLE_PAY_SINGLE_FEE_EXCEED`, `ACQ.CYCLE_PAY_TOTAL_FEE_EXCEED`,
            /// `ACQ.CYCLE_PAY_TOTAL_TIMES_EXCEED`: more than the payer agreed to.
            case overLimit
            /// Another refusal (`ACQ.PAYMENT_FAIL`, `ACQ.PAYMENT_REQUEST_HAS_RISK`, …).
            case other
        }

        /// What it means.
        public let reason: Reason
        /// `sub_code`, verbatim.
        public let subCode: String
        /// `sub_msg`, verbatim.
        public let subMessage: String?

        /// A refusal.
        /// - Parameters:
        ///   - subCode: Alipay's `sub_code`.
        ///   - subMessage: Alipay's `sub_msg`.
        public init(subCode: String, subMessage: String?) {
            self.subCode = subCode
            self.subMessage = subMessage
            switch subCode {
            case "ACQ.CYCLE_PAY_DATE_NOT_MATCH": reason = .outOfPeriod
            case "ACQ.BUYER_BALANCE_NOT_ENOUGH", "ACQ.BUYER_BANKCARD_BALANCE_NOT_ENOUGH": reason = .insufficientBalance
            case "ACQ.AGREEMENT_NOT_EXIST", "ACQ.AGREEMENT_INVALID", "ACQ.AGREEMENT_STATUS_NOT_NORMAL", "ACQ.AGREEMENT_ERROR":
                reason = .agreementEnded
            case "ACQ.CYCLE_PAY_SINGLE_FEE_EXCEED", "ACQ.CYCLE_PAY_TOTAL_FEE_EXCEED", "ACQ.CYCLE_PAY_TOTAL_TIMES_EXCEED":
                reason = .overLimit
            default: reason = .other
            }
        }

        /// `true` when a later attempt may pass (a balance topped up, the period's window open, a
        /// passing fault); `false` when it never will (the agreement ended, the amount is over what was agreed).
        public var isRetryable: Bool { reason != .agreementEnded && reason != .overLimit }
    }
}

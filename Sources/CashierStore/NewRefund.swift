public import Cashier

/// What ``RefundLedger/reserveRefund(_:now:)`` takes.
public struct NewRefund: Sendable {
    public var id: String
    public var orderID: String
    /// The payment to refund; `nil` for the one that paid the order.
    public var paymentID: String?
    /// `nil` for everything still refundable.
    public var amount: Money?
    public var outRefundNo: String
    public var reason: String?
    /// Who asks: `api`, `dashboard …`, `automatic`.
    public var requestedBy: String?

    public init(
        id: String = NewRefund.makeID(), orderID: String, paymentID: String? = nil, amount: Money? = nil,
        outRefundNo: String = NewRefund.makeRefundNumber(), reason: String? = nil, requestedBy: String? = nil
    ) {
        self.id = id
        self.orderID = orderID
        self.paymentID = paymentID
        self.amount = amount
        self.outRefundNo = outRefundNo
        self.reason = reason
        self.requestedBy = requestedBy
    }

    /// `re_` and 24 random letters and digits.
    public static func makeID() -> String { "re_" + RandomText.alphanumeric(count: 24) }

    /// A fresh refund number: `R` and 31 random letters and digits (WeChat allows 64, Alipay 64).
    public static func makeRefundNumber() -> String { "R" + RandomText.alphanumeric(count: 31) }
}

/// What reserving a refund did.
public enum RefundReservation: Sendable, Equatable {
    /// Reserved now: ask the provider, then ``RefundLedger/finishRefund(_:outcome:now:)``.
    case reserved(StoredRefund, StoredPayment)
    /// A refund with this `out_refund_no` already exists (a retry): its state, nothing reserved again.
    case existing(StoredRefund, StoredPayment)

    public var refund: StoredRefund {
        switch self {
        case .reserved(let refund, _), .existing(let refund, _): refund
        }
    }

    public var payment: StoredPayment {
        switch self {
        case .reserved(_, let payment), .existing(_, let payment): payment
        }
    }
}

/// What the provider said about a refund.
public enum RefundOutcome: Sendable, Equatable {
    /// Accepted (WeChat `SUCCESS` to the refund call, `PROCESSING` in v3; Alipay `fund_change`):
    /// counted as refunded, though a failure may still be reported until it is confirmed.
    case succeeded(providerRefundID: String?)
    /// The provider's final word: the payer has the money (a `SUCCESS` notification or query).
    case confirmed(providerRefundID: String?)
    /// Refused, or reported failed (`CHANGE`, `REFUNDCLOSE`, `ABNORMAL`, `CLOSED`, no `refund_status`).
    case failed(reason: String)
}

/// What finishing a refund did.
public enum RefundFinished: Sendable, Equatable {
    /// The refund moved (succeeded, or failed and released); the order as it is now.
    case changed(StoredOrder, StoredRefund)
    /// It already was there, or cannot go there (a success reported after a failure).
    case unchanged(StoredOrder, StoredRefund)

    public var order: StoredOrder {
        switch self {
        case .changed(let order, _), .unchanged(let order, _): order
        }
    }

    public var refund: StoredRefund {
        switch self {
        case .changed(_, let refund), .unchanged(_, let refund): refund
        }
    }
}

import Cashier

/// What a verified notification says, typed: the one vocabulary in which every provider's word
/// reaches ``EventApplier``, the one place that applies a provider's word to the books. A source
/// (``NotificationSource``) turns its provider's message into these and knows nothing of the
/// store; the applier finds the records, checks them against what the word names, and records it once.
enum ProviderEvent: Sendable {
    /// A payment's result (WeChat Pay's and Alipay's notifications).
    case payment(PaymentReport)
    /// A refund's result by its `out_refund_no` (WeChat Pay's refund notifications, Alipay's refund fields).
    case refund(RefundReport)
    /// A card processor's decision on an authorisation it had accepted without deciding (Stripe's
    /// `payment_intent.succeeded` / `payment_failed`, Adyen's `AUTHORISATION`).
    case decision(ProcessorDecisionReport)
    /// A processor's word on one of Cashier's refund records, named by the key it was sent with
    /// (Stripe's `refund.*` with `metadata.cashier_refund`, Adyen's `REFUND*`, a void Adyen refused).
    case processorRefund(ProcessorRefundReport)
    /// A refund made at the processor without Cashier (Stripe's Dashboard, Adyen's Customer Area).
    case outsideRefund(OutsideRefundReport)
    /// A capture's fate after the processor accepted it (Adyen's `CAPTURE`, `CAPTURE_FAILED`).
    case capture(CaptureReport)
    /// The processor no longer holds an authorisation (it lapsed, or was cancelled there).
    case authorizationEnded(AuthorizationEndReport)
    /// A step of a dispute (Stripe's `charge.dispute.*`, Adyen's chargeback events).
    case dispute(DisputeReport)
    /// A payer's complaint was made or moved (WeChat Pay's `COMPLAINT.CREATE`, `COMPLAINT.STATE_CHANGE`).
    case complaint(ComplaintReport)
    /// A transfer out ended (WeChat Pay's `MCHTRANSFER.BILL.FINISHED`).
    case transfer(TransferReport)
    /// A profit-sharing request moved (Alipay's `alipay.trade.order.settle.notify`).
    case split(SplitReport)
    /// A payer signed or ended an agreement (WeChat Pay's contract notifications, Alipay's
    /// `dut_user_sign` / `dut_user_unsign`).
    case agreement(AgreementReport)
}

/// A provider's word that a complaint was made or moved: which one, and what happened. The
/// complaint itself is read from the provider (``ComplaintService/sync(_:via:)``).
struct ComplaintReport: Sendable, Equatable {
    /// `wechat.v3`.
    let provider: PaymentProvider
    /// The provider's complaint id.
    let complaintID: String
    /// What happened (`CREATE_COMPLAINT`, `USER_RESPONSE`, …).
    let action: String
    /// The notification's id (repeats keep it).
    let notificationID: String
    /// The merchant complained about whose adapter verified it (``ComplaintHandling/complaintMerchantID``).
    let merchantID: String
}

/// Who said it, and what the order's log keeps of it.
struct ProcessorWord: Sendable {
    /// The processor, as records of money it moved by itself name it (``ProcessorActor``).
    let processor: String
    let fields: [String: String]
}

/// How a processor's word names a payment of Cashier's.
enum PaymentLocator: Sendable, Equatable {
    /// By Cashier's trade number, which the processor echoes as its merchant reference.
    case tradeNumber(String)
    /// By the processor's own payment reference, which the processor is asked to turn into its
    /// merchant reference (Stripe's refunds and disputes name only the PaymentIntent). Only a paid
    /// payment whose processor reference it is.
    case askProcessor(String)
    /// By the processor's own payment reference, as recorded here (Adyen's PSP reference of the
    /// original payment). Only a paid payment.
    case processorReference(String)
}

/// A processor's reference to the payment a word is about, when it names one: it must be the
/// payment's own. `strict`: the word must name it (Stripe's `payment_intent`); otherwise one that
/// names none passes (Adyen's optional `originalReference`).
struct NamedReference: Sendable, Equatable {
    let value: String?
    var strict = false

    func matches(_ transactionID: String?) -> Bool {
        strict ? value == transactionID : (value == nil || value == transactionID)
    }
}

/// An amount as a word names it (`value` minor units in `currency`). `strict`: both must be
/// there and be the record's; otherwise what is named must be.
struct NamedAmount: Sendable, Equatable {
    let value: Int64?
    let currency: String?
    var strict = false

    func isAmount(_ amount: Money) -> Bool {
        if strict { return value == amount.minorUnits && currency == amount.currency.code }
        return (value == nil || value == amount.minorUnits) && (currency == nil || currency == amount.currency.code)
    }
}

/// A card processor's decision on an authorisation (see ``ProviderEvent/decision(_:)``).
struct ProcessorDecisionReport: Sendable {
    let tradeNumber: String
    /// The processor's payment reference.
    let reference: String
    let amount: Money
    let authorized: Bool
    /// The processor's own word for it (`requires_payment_method`, `Refused`…).
    let status: String
    let word: ProcessorWord
}

/// A processor's word on a refund record of Cashier's (see ``ProviderEvent/processorRefund(_:)``).
struct ProcessorRefundReport: Sendable {
    enum State: Sendable, Equatable {
        /// Done, under the processor's id for it.
        case succeeded(String)
        case failed(String)
        /// Not decided yet: a later word says.
        case pending
        /// Logged on the order, not applied (`applied: why`).
        case logged(String)
    }

    /// The key the record was sent with (`cashier_{out_refund_no}_{operation}`).
    let key: String
    /// `refund`, or `void` for a void's record.
    let operation: String
    let paymentReference: NamedReference
    /// `nil`: not checked.
    let amount: NamedAmount?
    let state: State
    let word: ProcessorWord
}

/// A refund made at the processor without Cashier (see ``ProviderEvent/outsideRefund(_:)``).
struct OutsideRefundReport: Sendable {
    let payment: PaymentLocator
    let amount: NamedAmount
    /// The record's number: one per the processor's refund.
    let number: String
    /// `refunded at Stripe`, `refunded at Adyen`.
    let reason: String
    let state: ProviderRefundState
    /// A success counted now and confirmed later (a refund Stripe has not finished).
    var accepted = false
    /// A refund the processor refused moves nothing: logged with this note, not applied.
    var refused: String? = nil
    let word: ProcessorWord
}

/// A capture's fate (see ``ProviderEvent/capture(_:)``).
struct CaptureReport: Sendable {
    enum Kind: Sendable, Equatable {
        case succeeded
        case failed
        /// Captured after all, after a failure ("Transaction Recaptured").
        case recaptured(String)
    }

    let kind: Kind
    /// The reference the capture was sent under: `cashier_{pay_…}_capture`, `cashier_{R…}_capture`,
    /// or the payment's own trade number (its automatic capture).
    let merchantReference: String
    let paymentReference: NamedReference
    let amount: NamedAmount
    /// The processor's reference for the capture.
    let pspReference: String
    let word: ProcessorWord
}

/// An authorisation the processor no longer holds (see ``ProviderEvent/authorizationEnded(_:)``).
struct AuthorizationEndReport: Sendable {
    let payment: PaymentLocator
    /// Checked with ``PaymentLocator/tradeNumber(_:)``.
    var paymentReference = NamedReference(value: nil)
    let reason: String
    /// The processor's reference for the end.
    let reference: String
    let word: ProcessorWord
}

/// A step of a dispute (see ``ProviderEvent/dispute(_:)``).
struct DisputeReport: Sendable {
    enum Move: Sendable, Equatable {
        /// Nothing moves: the step is logged.
        case none
        /// Money taken back under `number`, recorded with `reason`.
        case chargeback(number: String, reason: String)
        /// The dispute won: the chargeback recorded under `number` is taken back.
        case reversal(number: String)
    }

    let payment: PaymentLocator
    var paymentReference = NamedReference(value: nil)
    /// The dispute as `order.disputed` announces it (once per its id), when this step opens one;
    /// its amount stands for the payment's when the word names none.
    let announces: Bool
    let disputeID: String
    let reason: String?
    let status: String?
    let evidenceDueBy: Int64?
    let amount: NamedAmount
    let move: Move
    /// The processor's reference for the dispute step.
    let reference: String
    let word: ProcessorWord
}

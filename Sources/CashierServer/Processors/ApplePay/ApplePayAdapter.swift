import ApplePay
import Cashier
import CashierStore
import Foundation

/// Apple Pay: the payment request for the sheet (``ApplePaySheet``); the token is authorised by
/// the merchant's processor (``ApplePayAuthorizer``), which also refunds, captures and voids,
/// and whose list of payments is the bill. Its webhooks (Stripe's, Adyen's) are sources of their
/// own (``StripeEvents``, ``AdyenEvents``). Nothing to close: a token is authorised at once or not at all.
struct ApplePayAdapter: Refunding, Capturing, Reconciling {
    let provider = PaymentProvider.applePay
    let methods: Set<PaymentMethod> = [.applePay]
    /// The processor decides.
    let currencies: Set<Currency>? = nil
    let configuration: MerchantConfiguration.ApplePay
    /// The server takes coupon codes on the sheet (`supportsCouponCode`).
    var takesCoupons = false

    /// A refund is accepted first and confirmed later when the processor's refunds can be looked
    /// up (Stripe) or Adyen's webhooks are read; otherwise the refund call's answer is final.
    var refundAnswerIsFinal: Bool { configuration.adyenHMACKey == nil && !configuration.processor.looksUpRefunds }

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        PreparedAttempt(appID: configuration.merchantIdentifier, merchantID: nil, payer: nil)
    }

    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> WalletParameters {
        var request = try ApplePaySheet(configuration: configuration).request(for: order).jsonObject()
        if takesCoupons { request["supportsCouponCode"] = true }
        return .applePayRequest(JSONValue(request))
    }

    /// An authorisation the processor accepted without deciding (Stripe's `processing`: the only
    /// open attempt with a processor id) is asked about; any other attempt has nothing to ask
    /// (a token is authorised at once or not at all).
    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState {
        guard let reference = payment.transactionID, payment.status.isOpen,
            let found = try await configuration.processor.payment(reference)
        else { return .unknown }
        switch found.state {
        case .authorized, .captured: return .paid(amount: found.authorized, transactionID: found.reference)
        case .pending: return .unpaid
        case .refused, .voided: return .failed("the processor did not authorise it (\(found.status))")
        }
    }

    /// An undecided authorisation (see ``query(_:)``) is cancelled at the processor first; one
    /// the processor cannot cancel while it decides keeps the order open (`in_progress`) until it
    /// has decided. Any other attempt holds nothing there.
    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult {
        guard payment.transactionID != nil, payment.status.isOpen else { return .closed }
        switch try await query(payment) {
        case .paid(let amount, let transactionID): return .paid(amount: amount, transactionID: transactionID)
        case .failed, .notFound: return .closed
        case .unpaid, .unknown:  // undecided, or a processor that cannot be asked (Adyen): cancelled first
            let reference = payment.transactionID ?? ""
            if case .succeeded = try await configuration.processor.void(
                reference, idempotencyKey: OperationKey.payment(payment, "void").value)
            {
                return .closed
            }
            throw StoreError(
                .inProgress,
                "payment \(payment.id) is still being processed by the card processor (\(reference)), which cannot cancel it now: "
                    + "the order can be closed once the processor has decided")
        }
    }

    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        guard let reference = payment.transactionID else {
            return .failed("payment \(payment.id) has no processor reference: it was never authorised")
        }
        switch try await configuration.processor.refund(
            reference, amount: refund.amount, idempotencyKey: OperationKey.refund(refund, "refund").value)
        {
        case .succeeded(let id): return .succeeded(providerRefundID: id)
        // Counted as accepted (its id kept) when the processor can be asked about it later.
        case .pending(let id): return configuration.processor.looksUpRefunds ? .succeeded(providerRefundID: id) : .processing
        case .refused(let reason): return .failed(reason)
        }
    }

    /// The processor keeps no refund the API can look up by Cashier's number: a refund whose
    /// answer was lost is sent again under the same idempotency key, which the processor answers
    /// with its first result. An accepted one is asked about by its own id (Stripe), or waits
    /// for Adyen's webhook (`POST /notify/adyen`).
    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        let processor = configuration.processor
        if refund.status == .pending, processor.looksUpRefunds, let reference = payment.transactionID {
            // Its answer was lost: made there already? (Sent again only if not: keys expire.)
            switch try await processor.refundStatus(payment: reference, idempotencyKey: OperationKey.refund(refund, "refund").value) {
            case nil: return .notFound
            case .succeeded(let id)?: return .succeeded(providerRefundID: id)
            case .pending?: return .processing
            case .refused(let reason)?: return .failed(reason)
            }
        }
        guard refund.status == .succeeded, !refundAnswerIsFinal else { return .notFound }
        guard processor.looksUpRefunds, let id = refund.providerRefundID, let state = try await processor.refundStatus(id) else {
            return .processing  // Adyen's webhook will say
        }
        switch state {
        case .succeeded(let reference): return .succeeded(providerRefundID: reference)
        case .pending: return .processing
        case .refused(let reason): return .failed(reason)
        }
    }

    /// The processor's payments created that day (Beijing time, as the other bills), as bill
    /// lines: what was authorised, and as refunds what went back (released at capture, voided, refunded).
    func bill(date: String) async throws -> BillLines? {
        try await billEntries(date: date).map(BillLines.init)
    }

    func billEntries(date: String) async throws -> [BillEntry]? {
        guard let start = BeijingTime.formatter("yyyy-MM-dd").date(from: date),
            let payments = try await configuration.processor.payments(from: start, to: start.addingTimeInterval(86_400))
        else { return nil }
        var entries: [BillEntry] = []
        for payment in payments {
            // Refused, or not decided yet: no money moved.
            guard let number = payment.merchantReference, payment.state != .refused, payment.state != .pending else { continue }
            entries.append(
                BillEntry(wallet: .applePay, outTradeNo: number, kind: .payment, amount: payment.authorized, reference: payment.reference))
            let released =
                switch payment.state {
                case .voided: payment.authorized.minorUnits
                case .captured: payment.authorized.minorUnits - payment.captured.minorUnits
                case .authorized, .pending, .refused: Int64(0)
                }
            let back = released + payment.refunded.minorUnits
            if back > 0 {
                entries.append(
                    BillEntry(
                        wallet: .applePay, outTradeNo: number, kind: .refund,
                        amount: Money(minorUnits: back, currency: payment.authorized.currency),
                        reference: payment.reference + "/back"))
            }
        }
        return entries
    }

    // MARK: Authorising and capturing

    /// Asks the processor to authorise a token (``ApplePayAuthorizer``).
    func authorize(_ authorization: ApplePay.ProcessorAuthorization) async throws -> ApplePay.ProcessorDecision {
        try await configuration.processor.authorize(authorization)
    }

    /// The processor's payments made between `from` and `to`, when it lists them (an
    /// authorisation whose answer was lost is found there).
    func processorPayments(from: Date, to: Date) async throws -> [ApplePay.ProcessorPayment]? {
        try await configuration.processor.payments(from: from, to: to)
    }

    func capture(_ payment: StoredPayment, amount: Money, key: OperationKey) async throws -> ProviderOperation {
        ProviderOperation(try await configuration.processor.capture(payment.transactionID ?? "", amount: amount, idempotencyKey: key.value))
    }

    func void(_ payment: StoredPayment, key: OperationKey) async throws -> ProviderOperation {
        ProviderOperation(try await configuration.processor.void(payment.transactionID ?? "", idempotencyKey: key.value))
    }

    func authorizationEnded(_ payment: StoredPayment) async throws -> ApplePay.AuthorizationEnd? {
        try await configuration.processor.authorizationEnded(payment.transactionID ?? "")
    }

    func merchantReference(ofPayment reference: String) async throws -> String? {
        try await configuration.processor.merchantReference(ofPayment: reference)
    }
}

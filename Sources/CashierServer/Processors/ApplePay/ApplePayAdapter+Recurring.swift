import ApplePay
import Cashier
import CashierStore
import Foundation

/// Apple Pay recurring payments through the merchant's processor (``ApplePay/RecurringProcessor``:
/// Stripe, Adyen). The payer signs by paying: the launch is the payment request with its
/// `recurringPaymentRequest` (`PKRecurringPaymentRequest`) — the agreement's description, its
/// single limit as the regular amount every period, `managementURL` the return URL — and the
/// token comes back to ``authorizeFirstCharge(_:order:under:token:)``, a customer-initiated
/// payment that stores the card at the processor. The agreement's provider number is then the
/// stored method (``ApplePay/StoredPaymentMethod/reference``: Stripe's `cus_…/pm_…`, Adyen's
/// `{shopper reference}/{storedPaymentMethodId}`) and its payer the processor's customer (Stripe's
/// `cus_…`, Adyen's shopper reference — the agreement's `externalNo`). Later charges are
/// merchant-initiated (``charge(_:order:under:notifyURL:)``); terminating removes the card at the
/// processor. The processor sends no sign or unsign notification.
extension ApplePayAdapter: Recurring {
    /// The Apple Pay merchant identifier.
    var recurringMerchantID: String { configuration.merchantIdentifier }

    var signingMethods: Set<PaymentMethod> { [.applePay] }

    /// The processor, when it stores cards. - Throws: `invalidConfiguration` when it does not.
    var recurringProcessor: any ApplePay.RecurringProcessor {
        get throws {
            guard let processor = configuration.processor as? any ApplePay.RecurringProcessor else {
                throw PaymentError(
                    .invalidConfiguration, provider: .applePay,
                    "the Apple Pay processor does not store cards for merchant-initiated charges: use Stripe or Adyen")
            }
            return processor
        }
    }

    /// The payment request for the sheet: one line (the agreement's description, its single
    /// limit), the total labelled with the merchant's name, and `recurringPaymentRequest` with the
    /// regular billing every `periodCount` `periodUnit`s (a week is seven days: Apple Pay counts
    /// in days, months and years), from `firstChargeAt` when set, managed at `returnURL`. The
    /// agreement's id is bound into the token (`applicationData`).
    /// - Throws: `invalidRequest` without a `returnURL` (Apple Pay requires a management URL).
    func signAgreement(_ agreement: StoredAgreement, notifyURL: String, returnURL: String?) async throws -> AgreementLaunch {
        guard let returnURL, let management = URL(string: returnURL), ["https", "http"].contains(management.scheme ?? ""),
            management.host != nil
        else {
            throw PaymentError(
                .invalidRequest, provider: .applePay,
                "an Apple Pay recurring payment needs return_url: the sheet shows it as the page where the payer manages the subscription")
        }
        let (unit, count): (ApplePay.Commitment.IntervalUnit, Int) =
            switch agreement.periodUnit {
            case .day: (.day, agreement.periodCount)
            case .week: (.day, agreement.periodCount * 7)
            case .month: (.month, agreement.periodCount)
            case .year: (.year, agreement.periodCount)
            }
        let networks = configuration.supportedNetworks
        var request = try ApplePay.PaymentRequest(
            merchantIdentifier: configuration.merchantIdentifier, countryCode: configuration.countryCode,
            items: [try LineItem(label: agreement.description, unitAmount: agreement.singleLimit)], totalLabel: configuration.displayName,
            supportedNetworks: networks,
            merchantCapabilities: configuration.countryCode.alpha2 == "CN" || networks.contains(.chinaUnionPay)
                ? [.supports3DS, .supportsEMV] : [.supports3DS],
            requiredBillingContactFields: configuration.requiredBillingContactFields, applicationData: Array(agreement.id.utf8))
        try request.commit(
            to: .recurring(
                ApplePay.Commitment.Recurring(
                    paymentDescription: agreement.description,
                    regularBilling: .init(
                        label: agreement.description, amount: agreement.singleLimit, intervalUnit: unit, intervalCount: count,
                        startDate: agreement.firstChargeAt),
                    managementURL: management)))
        return .applePayRequest(JSONValue(try request.jsonObject()))
    }

    /// The token verified (bound to the agreement's id; decrypted and its amount checked when
    /// the merchant holds the processing key), then authorised for `payment` with the card stored
    /// for the agreement's `externalNo` (the processor's `setup_future_usage` / `storePaymentMethod`,
    /// under the payment's `authorize` idempotency key). Authorised: paid, and the agreement
    /// `active` with the stored method; declined: `failed` with the processor's reason; accepted
    /// undecided (Stripe's `processing`): still `pending`, with the method the processor will
    /// store once it succeeds (``agreementProgress(_:)`` then finds it held).
    func authorizeFirstCharge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, token: Data)
        async throws -> (charge: ChargeAnswer, agreement: AgreementProgress)
    {
        let processor = try recurringProcessor
        let parsed = try ApplePay.PaymentToken(json: token)
        var decrypted: ApplePay.DecryptedPayment?
        if let decrypter = configuration.decrypter {
            let card = try decrypter.decrypt(parsed, applicationData: Array(agreement.id.utf8))
            try card.check(total: payment.amount)
            decrypted = card
        } else {
            _ = try configuration.verifier.verify(parsed, applicationData: Array(agreement.id.utf8))
        }
        let answer = try await processor.authorize(
            ApplePay.ProcessorAuthorization(
                amount: payment.amount, reference: payment.outTradeNo, idempotencyKey: OperationKey.payment(payment, "authorize").value,
                token: parsed, decrypted: decrypted),
            storing: ApplePay.RecurringTerms(shopperReference: agreement.externalNo, model: .subscription))
        switch answer.decision {
        case .authorized(let reference):
            guard let stored = answer.stored else {
                throw PaymentError(
                    .malformedMessage, provider: .applePay, "the processor authorised the first payment without storing the card")
            }
            return (
                .paid(amount: payment.amount, transactionID: reference),
                AgreementProgress(status: .active, providerState: "stored", providerAgreementID: stored.reference, payer: stored.shopper)
            )
        case .pending:
            return (
                .accepted,
                AgreementProgress(
                    status: .pending, providerState: "processing", providerAgreementID: answer.stored?.reference,
                    payer: answer.stored?.shopper)
            )
        case .declined(let reason, let message):
            return (
                .declined(reason: "\(reason.rawValue): \(message)", retryable: reason.isRetryable),
                AgreementProgress(status: .failed, providerState: reason.rawValue, reason: message)
            )
        }
    }

    /// A merchant-initiated charge of the stored card for `payment`'s amount, under the payment's
    /// `authorize` idempotency key (its trade number as the reference). Declined with the
    /// processor's reason: insufficient funds or a generic decline may pass later (retryable);
    /// an expired card, one that needs the payer present, or one the processor no longer holds not.
    func charge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, notifyURL: String) async throws
        -> ChargeAnswer
    {
        guard agreement.status == .active, let stored = agreement.providerAgreementID.flatMap(ApplePay.StoredPaymentMethod.init(reference:))
        else {
            throw PaymentError(
                .invalidRequest, provider: .applePay,
                "agreement \(agreement.id) has no stored card to charge (it is \(agreement.status.rawValue))")
        }
        let decision = try await recurringProcessor.charge(
            stored, amount: payment.amount, reference: payment.outTradeNo, idempotencyKey: OperationKey.payment(payment, "authorize").value,
            model: .subscription)
        switch decision {
        case .authorized(let reference): return .paid(amount: payment.amount, transactionID: reference)
        case .pending: return .accepted
        case .declined(let reason, let message): return .declined(reason: "\(reason.rawValue): \(message)", retryable: reason.isRetryable)
        }
    }

    /// Whether the processor still holds the stored card: `active` while it does, `terminated`
    /// (`detached`) once it does not — or, for a `pending` agreement whose first payment the
    /// processor has not decided (Stripe's `processing`), still `pending` until it stores the
    /// card; `nil` before a first payment named one.
    func agreementProgress(_ agreement: StoredAgreement) async throws -> AgreementProgress? {
        guard let reference = agreement.providerAgreementID, let stored = ApplePay.StoredPaymentMethod(reference: reference) else {
            return nil
        }
        guard try await recurringProcessor.holds(stored) else {
            if agreement.status == .pending {  // the first payment not decided yet: stored once it succeeds
                return AgreementProgress(
                    status: .pending, providerState: "processing", providerAgreementID: reference, payer: stored.shopper)
            }
            return AgreementProgress(
                status: .terminated, providerState: "detached", providerAgreementID: reference, payer: stored.shopper,
                reason: "the processor no longer holds the stored card")
        }
        return AgreementProgress(status: .active, providerState: "stored", providerAgreementID: reference, payer: stored.shopper)
    }

    /// Removes the stored card at the processor (Stripe's detach, Adyen's token deletion);
    /// `terminated` whether it was removed now or was gone already.
    func terminateAgreement(_ agreement: StoredAgreement, remark: String) async throws -> AgreementProgress {
        guard let reference = agreement.providerAgreementID, let stored = ApplePay.StoredPaymentMethod(reference: reference) else {
            return AgreementProgress(status: .terminated, providerState: "never_stored", reason: remark)
        }
        let removed = try await recurringProcessor.remove(stored, idempotencyKey: "cashier_\(agreement.id)_terminate")
        return AgreementProgress(
            status: .terminated, providerState: removed ? "detached" : "already_detached", providerAgreementID: reference,
            payer: stored.shopper, reason: remark)
    }
}

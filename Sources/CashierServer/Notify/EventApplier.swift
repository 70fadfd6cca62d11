import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// The one place a provider's word changes the books. Every verified notification — WeChat Pay's,
/// Alipay's, Stripe's, Adyen's — reaches here as typed ``ProviderEvent``s: the records it names
/// are found, checked against what it says (amount, currency, the payment's own merchant and
/// processor reference), and it is recorded once, by compare-and-set, whatever instance it
/// reaches and however often it is repeated. The provider hears back (``NotificationOutcome``)
/// only after that is on disk.
struct EventApplier: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// Applies `events`, in order: the first that cannot be recorded stops the rest (the provider
    /// sends them all again; what was recorded stays recorded once).
    /// - Parameter wallet: the wallet whose notify path they came to (trade numbers are the wallet's).
    func apply(_ events: [ProviderEvent], wallet: PaymentMethod.Wallet, bodyHash: String) async -> NotificationOutcome {
        var outcome = NotificationOutcome.acknowledged
        for event in events {
            let result = await apply(event, wallet: wallet, bodyHash: bodyHash)
            switch result {
            case .retry, .unverified: return result
            case .refused: outcome = .refused
            case .acknowledged: break
            }
        }
        return outcome
    }

    func apply(_ event: ProviderEvent, wallet: PaymentMethod.Wallet, bodyHash: String) async -> NotificationOutcome {
        switch event {
        case .payment(let report): return await record(report, wallet: wallet, bodyHash: bodyHash)
        case .refund(let report): return await record(report, wallet: wallet, bodyHash: bodyHash)
        case .complaint(let report): return await ledger.complaints.apply(report)
        case .transfer(let report): return await ledger.transfers.apply(report)
        case .split(let report): return await ledger.splits.apply(report)
        case .agreement(let report): return await ledger.recurring.apply(report)
        default:
            do {
                try await applyProcessorWord(event, bodyHash: bodyHash)
                return .acknowledged
            } catch {
                // Nothing is lost: the processor sends it again, and what was recorded stays recorded once.
                return .retry
            }
        }
    }

    // MARK: Payments

    /// What the store records of a reported success: the outcome, the provider's checks run on
    /// the attempt it finds (a refusal writes nothing), and the log line for a change or a repeat.
    struct ReportedSuccess: Sendable {
        let outcome: PaymentOutcome
        let accept: @Sendable (StoredPayment) throws -> Void
        let record: EventRecord
        let duplicate: EventRecord
    }

    /// The success `report` reports, or `nil` when it reports none.
    static func paid(_ report: PaymentReport, bodyHash: String) -> ReportedSuccess? {
        guard case .paid(let amount, let transactionID) = report.state else { return nil }
        let detail = Ledger.detail(report.fields)
        let check = report.check
        let merchant = report.merchantID
        return ReportedSuccess(
            outcome: .succeeded(transactionID: transactionID, amount: amount),
            accept: { payment in
                do {
                    try Self.sameMerchant(payment, merchant)
                    try PaymentService.accept(payment, amount: amount, check: check)
                } catch let error as PaymentError {
                    throw Refusal(payment: payment, error: error)
                }
            },
            record: EventRecord(kind: .notification, detail: detail, bodySHA256: bodyHash),
            duplicate: EventRecord(kind: .notificationDuplicate, detail: detail, bodySHA256: bodyHash))
    }

    /// - Throws: `merchantMismatch` when the payment is another merchant's than the one the
    ///   verified message names (the service provider's key signs every sub-merchant's messages,
    ///   so a genuine one of one sub-merchant's must never move another's payment).
    static func sameMerchant(_ payment: StoredPayment, _ named: String?) throws {
        guard let named, let own = payment.merchantID, own != named else { return }
        throw PaymentError(.merchantMismatch, "the notification is for merchant \(named); payment \(payment.id) is merchant \(own)'s")
    }

    /// A body's SHA-256, as the event log keeps it.
    static func hash(_ body: [UInt8]) -> String { Hex.encode(DigestAlgorithm.sha256.hash(body)) }

    /// A verified payment notification: the attempt found by its trade number at the wallet, the
    /// provider's checks run against it, the success recorded once (or its duplicate logged).
    /// A success takes one transaction: the attempt is found, checked and recorded together.
    func record(_ report: PaymentReport, wallet: PaymentMethod.Wallet, bodyHash: String) async -> NotificationOutcome {
        if let success = Self.paid(report, bodyHash: bodyHash) {
            let result: Result<PaymentRecorded?, any Error>
            do {
                result = .success(
                    try await store.recordPayment(
                        success.outcome, wallet: wallet, outTradeNo: report.outTradeNo, accept: success.accept, record: success.record,
                        duplicate: success.duplicate, now: clock.now()))
            } catch {
                result = .failure(error)
            }
            return await finishRecording(result, report, bodySHA256: bodyHash)
        }
        do {
            guard let payment = try await store.payment(wallet: wallet, outTradeNo: report.outTradeNo) else {
                return try await refuseUnknown(report, bodySHA256: bodyHash)
            }
            do {
                try Self.sameMerchant(payment, report.merchantID)
            } catch let error as PaymentError {
                try await ledger.payments.refuse(payment, error, bodySHA256: bodyHash)
                return .refused
            }
            try await store.append(
                EventRecord(kind: .notification, detail: Ledger.detail(report.fields), bodySHA256: bodyHash), to: payment.orderID,
                now: clock.now())
            return .acknowledged
        } catch {
            return .retry
        }
    }

    /// What a recorded success comes to when nothing is left to do: a repeat, or a change needing
    /// no follow-up, is acknowledged (it is on disk); a failure other than a refused check is
    /// answered "retry". `nil`: ``finishRecording(_:_:bodySHA256:)`` has more to do.
    static func finishedAtOnce(_ result: Result<PaymentRecorded?, any Error>) -> NotificationOutcome? {
        switch result {
        case .success(.unchanged?), .success(.updated?): .acknowledged
        case .failure(let error) where !(error is Refusal): .retry
        default: nil
        }
    }

    /// The rest of a recorded success: a first one closes the order's other attempts (only then
    /// is it acknowledged), a refused check is logged, and a number no attempt has is refused.
    func finishRecording(_ result: Result<PaymentRecorded?, any Error>, _ report: PaymentReport, bodySHA256: String?) async
        -> NotificationOutcome
    {
        if let outcome = Self.finishedAtOnce(result) { return outcome }
        do {
            switch result {
            case .success(let found?):
                try await ledger.payments.afterSuccess(found)
                return .acknowledged  // only now: the change is on disk
            case .success(nil): return try await refuseUnknown(report, bodySHA256: bodySHA256)
            case .failure(let error):
                guard let refusal = error as? Refusal else { return .retry }
                try await ledger.payments.refuse(refusal.payment, refusal.error, bodySHA256: bodySHA256)
                return .refused
            }
        } catch {
            return .retry
        }
    }

    /// No attempt of ours has the report's number: logged against the order if one has it, refused.
    private func refuseUnknown(_ report: PaymentReport, bodySHA256: String?) async throws -> NotificationOutcome {
        if let order = try await store.order(outTradeNo: report.outTradeNo) {
            try await store.append(
                EventRecord(
                    kind: .notificationRefused, detail: Ledger.detail(["reason": "no payment was started with this number"]),
                    bodySHA256: bodySHA256), to: order.id, now: clock.now())
        }
        return .refused
    }

    /// A reported success the payment's checks refused (another amount or currency): nothing
    /// was written; the refusal is logged after the transaction.
    struct Refusal: Error {
        let payment: StoredPayment
        let error: PaymentError
    }

    // MARK: Refunds

    /// A verified refund result: the refund found by its number, its success or failure recorded once.
    func record(_ report: RefundReport, wallet: PaymentMethod.Wallet, bodyHash: String) async -> NotificationOutcome {
        do {
            guard let payment = try await store.payment(wallet: wallet, outTradeNo: report.outTradeNo) else { return .refused }
            do {
                try Self.sameMerchant(payment, report.merchantID)
            } catch let error as PaymentError {
                try await ledger.payments.refuse(payment, error, bodySHA256: bodyHash)
                return .refused
            }
            var fields = report.fields
            if let minor = report.amountMinor {
                fields["refund"] = Money(minorUnits: minor, currency: payment.amount.currency).decimalString
            }
            let refunds = ledger.refunds
            let known = try await store.refund(outRefundNo: report.outRefundNo)
            guard let refund = known, refund.paymentID == payment.id else {
                // A refund made elsewhere (the provider's console): recorded when its amount is known, logged either way.
                // (A number of another payment's refund is only logged.)
                let recorded =
                    known == nil
                    ? try await refunds.recordConsoleRefund(
                        report, of: payment, adapter: try ledger.adapters.refunding(for: payment), fields: fields, bodyHash: bodyHash)
                    : false
                if !recorded { try await refunds.logRefundEvent(fields, payment, bodyHash: bodyHash) }
                return .acknowledged
            }
            try await refunds.logRefundEvent(fields, payment, bodyHash: bodyHash)
            try await refunds.finish(refund, report.state)
            return .acknowledged
        } catch {
            return .retry
        }
    }
}

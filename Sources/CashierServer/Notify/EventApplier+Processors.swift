import Cashier
import CashierStore
import Foundation

/// A card processor's word (Stripe's events, Adyen's items), applied: decisions on authorisations
/// it had left undecided, outcomes of refunds and voids, refunds made outside Cashier, ended
/// authorisations and disputes. A word about no payment of Cashier's, or about another amount
/// or processor reference than the record's, changes nothing (the latter is logged as refused).
extension EventApplier {
    /// Applies a card processor's event. - Throws: when it could not be recorded (the processor
    /// sends it again).
    func applyProcessorWord(_ event: ProviderEvent, bodyHash: String) async throws {
        switch event {
        case .decision(let report): try await apply(report, bodyHash: bodyHash)
        case .processorRefund(let report): try await apply(report, bodyHash: bodyHash)
        case .outsideRefund(let report): try await apply(report, bodyHash: bodyHash)
        case .capture(let report): try await apply(report, bodyHash: bodyHash)
        case .authorizationEnded(let report): try await apply(report, bodyHash: bodyHash)
        case .dispute(let report): try await apply(report, bodyHash: bodyHash)
        case .payment, .refund, .complaint, .transfer, .split, .agreement: return
        }
    }

    /// The Apple Pay payment a word names (see ``PaymentLocator``).
    func payment(_ locator: PaymentLocator) async throws -> StoredPayment? {
        switch locator {
        case .tradeNumber(let number):
            return try await store.payment(wallet: .applePay, outTradeNo: number)
        case .askProcessor(let reference):
            guard let number = try await ledger.adapters.capturing()?.merchantReference(ofPayment: reference),
                let payment = try await store.payment(wallet: .applePay, outTradeNo: number), payment.status == .succeeded,
                payment.transactionID == reference
            else { return nil }
            return payment
        case .processorReference(let reference):
            guard !reference.isEmpty else { return nil }
            return try await store.payments(matching: RecordQuery(method: .applePay, search: reference, limit: 10)).first {
                $0.transactionID == reference && $0.status == .succeeded
            }
        }
    }

    /// The processor's word on an authorisation it had accepted without deciding: `authorized`
    /// for `amount` under its payment `reference`, or not. One authorised is recorded paid — once,
    /// its amount checked —, one refused failed. It moves only an attempt that is not paid and has
    /// no other processor id; for one already paid — processors announce every payment — it
    /// changes nothing.
    func apply(_ report: ProcessorDecisionReport, bodyHash: String) async throws {
        guard let payment = try await payment(.tradeNumber(report.tradeNumber)) else { return }
        try await ledger.applePay.applyDecision(
            payment, reference: report.reference, amount: report.amount, authorized: report.authorized, status: report.status,
            by: report.word.processor, fields: report.word.fields, bodyHash: bodyHash)
    }

    /// A processor's word on one of Cashier's refund records (a refund, or a void's release):
    /// the record found by the key it was sent with, and the payment's processor reference checked.
    func apply(_ report: ProcessorRefundReport, bodyHash: String) async throws {
        guard let number = OperationKey.recordNumber(in: report.key, report.operation),
            let refund = try await store.refund(outRefundNo: number), let payment = try await store.payment(id: refund.paymentID),
            payment.method == .applePay, report.paymentReference.matches(payment.transactionID)
        else { return }
        var fields = report.word.fields
        fields["out_refund_no"] = refund.outRefundNo
        if let amount = report.amount {
            guard try await sameAmount(amount, refund.amount, "the refund's", fields: fields, order: payment.orderID, bodyHash: bodyHash)
            else { return }
        }
        if case .logged(let why) = report.state { fields["applied"] = why }
        try await ledger.refunds.logRefundEvent(fields, payment, bodyHash: bodyHash)
        switch report.state {
        case .succeeded(let id): try await ledger.refunds.finish(refund, .succeeded(providerRefundID: id))
        case .failed(let reason): try await ledger.refunds.finish(refund, .failed(reason))
        case .pending, .logged: return
        }
    }

    /// Whether a word is about `amount` (see ``NamedAmount``). A word on another amount is logged
    /// on the order as refused, and not applied.
    func sameAmount(_ named: NamedAmount, _ amount: Money, _ whose: String, fields: [String: String], order: String, bodyHash: String)
        async throws -> Bool
    {
        if named.isAmount(amount) { return true }
        var fields = fields
        fields["refused"] = "the webhook's amount is not \(whose) \(amount.decimalString) \(amount.currency.code)"
        try await store.append(
            EventRecord(kind: .notificationRefused, detail: Ledger.detail(fields), bodySHA256: bodyHash), to: order, now: clock.now())
        return false
    }

    /// A refund made at the processor without Cashier, recorded so the order's books follow the
    /// money (``RefundService/recordOutsideRefund(_:_:number:reason:by:state:accepted:fields:bodyHash:)``).
    func apply(_ report: OutsideRefundReport, bodyHash: String) async throws {
        guard let payment = try await payment(report.payment) else { return }
        var fields = report.word.fields
        fields["payment"] = payment.id
        let refunds = ledger.refunds
        guard
            let amount = try await refunds.outsideRefundAmount(
                report.amount.value, report.amount.currency, of: payment, fields: fields, bodyHash: bodyHash)
        else { return }
        if let refused = report.refused {
            fields["applied"] = refused
            return try await refunds.logRefundEvent(fields, payment, bodyHash: bodyHash)
        }
        try await refunds.recordOutsideRefund(
            payment, amount, number: report.number, reason: report.reason, by: report.word.processor, state: report.state,
            accepted: report.accepted, fields: fields, bodyHash: bodyHash)
    }

    /// An authorisation the processor no longer holds (``Lapses``).
    func apply(_ report: AuthorizationEndReport, bodyHash: String) async throws {
        guard let payment = try await payment(report.payment), report.paymentReference.matches(payment.transactionID) else { return }
        try await ledger.lapses.apply(
            payment, by: report.word.processor, reason: report.reason, reference: report.reference, fields: report.word.fields,
            bodyHash: bodyHash)
    }

    /// A dispute's step (``Disputes``): announced once when it opens one, its money taken back or
    /// returned, logged on the order otherwise.
    func apply(_ report: DisputeReport, bodyHash: String) async throws {
        guard let payment = try await payment(report.payment), payment.status == .succeeded,
            report.paymentReference.matches(payment.transactionID)
        else { return }
        let disputes = ledger.disputes
        var fields = report.word.fields
        fields["payment"] = payment.id
        let named = RefundService.namedAmount(report.amount.value, report.amount.currency, of: payment)
        if report.announces {
            try await disputes.announce(
                DisputeJSON(
                    id: report.disputeID, processor: report.word.processor, paymentID: payment.id, amount: named ?? payment.amount,
                    reason: report.reason, status: report.status, evidenceDueBy: report.evidenceDueBy), of: payment)
        }
        guard report.move != .none else { return try await disputes.log(fields, payment, bodyHash: bodyHash) }
        guard let amount = named else {
            fields = ledger.refunds.notApplied(
                fields, "the dispute names no amount in \(payment.amount.currency.code)", of: payment, reason: "no_amount")
            return try await disputes.log(fields, payment, bodyHash: bodyHash)
        }
        switch report.move {
        case .chargeback(let number, let reason):
            try await disputes.recordChargeback(
                payment, amount, number: number, reason: reason, by: report.word.processor, reference: report.reference, fields: fields,
                bodyHash: bodyHash)
        case .reversal(let number):
            try await ledger.refunds.takeBack(
                payment, amount, number: number, reason: "chargeback", by: report.word.processor,
                why: "chargeback reversed: the dispute was won")
        case .none: return
        }
    }
}

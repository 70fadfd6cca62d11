import ApplePay
import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Adyen's dispute webhooks: the payer's bank taking money back from the merchant.
///
/// `CHARGEBACK` and `SECOND_CHARGEBACK` take the amount Adyen names back: recorded as money gone
/// back — a refund with reason `chargeback` (or `second chargeback`), requested by `adyen`, asked
/// of no one — so the order's books follow the merchant's account, and `order.refunded` is sent.
/// `CHARGEBACK_REVERSED` (the dispute won) takes that record back: `order.refund_failed`, the
/// money the merchant's again. The other dispute events (`NOTIFICATION_OF_CHARGEBACK`,
/// `REQUEST_FOR_INFORMATION`, pre-arbitration, …) move no money and are logged on the order as
/// they arrive. Each record's number comes from the dispute's reference and the event, so every
/// copy of a webhook, at any instance, finds the same record and moves nothing again.
extension MerchantAPI {
    /// The dispute events Cashier knows; those not in ``disputeMoves`` are logged only.
    static let disputeEvents: Set<String> = [
        "NOTIFICATION_OF_CHARGEBACK", "CHARGEBACK", "CHARGEBACK_REVERSED", "SECOND_CHARGEBACK", "REQUEST_FOR_INFORMATION",
        "DISPUTE_OPENED_WITH_CHARGEBACK", "PREARBITRATION_WON", "PREARBITRATION_LOST", "INFORMATION_SUPPLIED",
        "DISPUTE_DEFENSE_PERIOD_ENDED", "ISSUER_RESPONSE_TIMEFRAME_EXPIRED", "ISSUER_COMMENTS", "NOTIFICATION_OF_FRAUD",
    ]

    /// The events that open a dispute cycle (`order.disputed`, once per dispute reference and
    /// cycle): the first chargeback, with or without its notice or a request for information
    /// first, and the second chargeback.
    static let disputeOpenings = [
        "NOTIFICATION_OF_CHARGEBACK": "", "REQUEST_FOR_INFORMATION": "", "DISPUTE_OPENED_WITH_CHARGEBACK": "", "CHARGEBACK": "",
        "SECOND_CHARGEBACK": "second",
    ]

    /// The events that move money, and the reason their record carries.
    static let disputeMoves = ["CHARGEBACK": "chargeback", "SECOND_CHARGEBACK": "second chargeback"]

    func applyDispute(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        // Disputes name the payment by its own reference (our out_trade_no) and its PSP reference.
        guard let payment = try await store.payment(wallet: .applePay, outTradeNo: item.merchantReference),
            payment.status == .succeeded, item.originalReference == nil || item.originalReference == payment.transactionID
        else { return }
        var fields = Self.fields(of: item)
        fields["payment"] = payment.id
        let named = Self.namedAmount(item.value, item.currency, of: payment)
        if let cycle = Self.disputeOpenings[item.eventCode] {
            // The merchant hears of each dispute cycle once, whichever of its events comes first: every
            // event of a dispute carries the dispute's own PSP reference (Adyen's dispute webhooks:
            // "All events related to a dispute have the same PSP reference"; the payment's is `originalReference`).
            try await announceDispute(
                DisputeJSON(
                    id: cycle.isEmpty ? item.pspReference : "\(item.pspReference) \(cycle)", processor: Self.adyenActor,
                    paymentID: payment.id, amount: named ?? payment.amount, reason: item.reason, status: item.eventCode,
                    evidenceDueBy: item.defensePeriodEndsAt.map { Int64($0.timeIntervalSince1970) }), of: payment)
        }
        let moves = Self.disputeMoves[item.eventCode] != nil || item.eventCode == "CHARGEBACK_REVERSED"
        guard moves else { return try await logDispute(fields, payment, bodyHash: bodyHash) }
        guard let amount = named else {
            fields = notApplied(fields, "the webhook names no amount in \(payment.amount.currency.code)", of: payment, reason: "no_amount")
            return try await logDispute(fields, payment, bodyHash: bodyHash)
        }
        if let reason = Self.disputeMoves[item.eventCode] {
            try await recordChargeback(
                payment, amount, number: Self.disputeNumber(item.pspReference, item.eventCode), reason: reason, by: Self.adyenActor,
                reference: item.pspReference, fields: fields, bodyHash: bodyHash)
        } else {
            try await takeBack(
                payment, amount, number: Self.disputeNumber(item.pspReference, "CHARGEBACK"), reason: "chargeback", by: Self.adyenActor,
                why: "chargeback reversed: the dispute was won")
        }
    }
}

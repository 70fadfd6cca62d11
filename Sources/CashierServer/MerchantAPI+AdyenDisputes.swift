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

    /// The events that move money, and the reason their record carries.
    static let disputeMoves = ["CHARGEBACK": "chargeback", "SECOND_CHARGEBACK": "second chargeback"]

    /// The number of the record a dispute event makes (`CHARGEBACK_REVERSED` finds the
    /// `CHARGEBACK`'s): one per dispute and event.
    static func disputeNumber(_ dispute: String, _ event: String) -> String {
        "R" + Hex.encode(DigestAlgorithm.sha256.hash("dispute\n\(event)\n\(dispute)")).prefix(31)
    }

    func applyDispute(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        // Disputes name the payment by its own reference (our out_trade_no) and its PSP reference.
        guard let payment = try await store.payment(wallet: .applePay, outTradeNo: item.merchantReference),
            payment.status == .succeeded, item.originalReference == nil || item.originalReference == payment.transactionID
        else { return }
        var fields = Self.fields(of: item)
        fields["payment"] = payment.id
        let currency = payment.amount.currency
        let moves = Self.disputeMoves[item.eventCode] != nil || item.eventCode == "CHARGEBACK_REVERSED"
        guard moves else { return try await log(fields, payment, bodyHash) }
        guard let value = item.value, item.currency == currency.code, value > 0 else {
            fields["applied"] = "no: the webhook names no amount in \(currency.code)"
            return try await log(fields, payment, bodyHash)
        }
        let amount = Money(minorUnits: value, currency: currency)
        switch item.eventCode {
        case let event where Self.disputeMoves[event] != nil:
            let number = Self.disputeNumber(item.pspReference, event)
            let record: StoredRefund
            do {
                record = try await store.reserveRefund(
                    NewRefund(
                        orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: number,
                        reason: Self.disputeMoves[event], requestedBy: Self.adyenActor), now: clock.now()
                ).refund
            } catch let error as StoreError where error.code == .limitExceeded {
                // More than is left of the payment (it was refunded meanwhile): the merchant's to settle with Adyen.
                fields["applied"] = "no: \(error.message)"
                try await log(fields, payment, bodyHash)
                return
            }
            // A reversal that came first left the record failed: nothing moves then.
            try await finish(record, .succeeded(providerRefundID: item.pspReference))
        case "CHARGEBACK_REVERSED":
            let number = Self.disputeNumber(item.pspReference, "CHARGEBACK")
            // When the reversal outran its chargeback (Adyen retried that one), the chargeback's record
            // is made already taken back, so the chargeback finds it and moves nothing.
            var record = try await store.refund(outRefundNo: number)
            if record == nil {
                record = try? await store.reserveRefund(
                    NewRefund(
                        orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: number, reason: "chargeback",
                        requestedBy: Self.adyenActor), now: clock.now()
                ).refund
            }
            if let record, record.status != .failed {
                try await finish(record, .failed("chargeback reversed: the dispute was won"))
            }
        default: return
        }
    }

    /// A dispute event on its order's log, as it arrives.
    private func log(_ fields: [String: String], _ payment: StoredPayment, _ bodyHash: String) async throws {
        try await store.append(
            EventRecord(kind: .dispute, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now())
    }
}

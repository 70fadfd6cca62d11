import ApplePay
import Cashier
import CashierStore
import Foundation

/// What a merchant does to a payment in Adyen's Customer Area, without Cashier: its webhook names
/// the modification by a reference that is not one of Cashier's keys (the payment's own merchant
/// reference, or what the merchant typed), and the payment by its PSP reference
/// (`originalReference`), which finds Cashier's payment. So the order's books follow Adyen's:
///
/// - a refund (`REFUND` with `success`) is recorded as money gone back — reason
///   `refunded at Adyen`, requested by `adyen`, never sent to it — once per Adyen refund;
///   `REFUND_FAILED` or `REFUNDED_REVERSED` takes it back (first, it leaves the record failed, so
///   the late `REFUND` moves nothing); a `REFUND` Adyen refused moved nothing and is only logged;
/// - a cancel (`CANCELLATION` with `success`) of a held payment ends its authorisation as a lapse
///   does (``applyLapse(_:by:reason:reference:fields:bodyHash:)``: reason `cancelled at Adyen`);
/// - a capture needs nothing here: its `CAPTURE` names the payment's own reference, which
///   ``applyCaptureSuccess(_:bodyHash:)`` reads as the payment's capture.
extension MerchantAPI {
    /// The number of the record of a refund made in Adyen's Customer Area: one per Adyen refund.
    static func customerAreaRefundNumber(_ pspReference: String) -> String {
        derivedNumber("adyen refund", pspReference)
    }

    /// Cashier's paid Apple Pay payment whose PSP reference is `psp`.
    private func adyenPayment(_ psp: String?) async throws -> StoredPayment? {
        guard let psp, !psp.isEmpty else { return nil }
        return try await store.payments(matching: RecordQuery(method: .applePay, search: psp, limit: 10)).first {
            $0.transactionID == psp && $0.status == .succeeded
        }
    }

    func applyCustomerAreaRefund(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        guard let payment = try await adyenPayment(item.originalReference) else { return }
        var fields = Self.fields(of: item)
        fields["payment"] = payment.id
        guard
            let amount = try await outsideRefundAmount(
                item.value, item.currency, of: payment, fields: fields, bodyHash: bodyHash)
        else { return }
        guard item.eventCode != "REFUND" || item.success else {
            fields["applied"] = "no: Adyen refused the refund, and no money moved"
            return try await logRefundEvent(fields, payment, bodyHash: bodyHash)
        }
        // REFUND_FAILED, REFUNDED_REVERSED: the money came back.
        let words = item.reason.flatMap { $0.isEmpty ? nil : $0 } ?? "reported"
        try await recordOutsideRefund(
            payment, amount, number: Self.customerAreaRefundNumber(item.pspReference), reason: "refunded at Adyen", by: Self.adyenActor,
            state: item.eventCode == "REFUND"
                ? .succeeded(providerRefundID: item.pspReference) : .failed("Adyen \(item.eventCode): \(words)"),
            fields: fields, bodyHash: bodyHash)
    }

    func applyCustomerAreaCancel(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        guard let payment = try await adyenPayment(item.originalReference) else { return }
        try await applyLapse(
            payment, by: Self.adyenActor, reason: "cancelled at Adyen", reference: item.pspReference, fields: Self.fields(of: item),
            bodyHash: bodyHash)
    }
}

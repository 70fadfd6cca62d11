import ApplePay
public import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

/// What a merchant does to a payment in Adyen's Customer Area, without the integration: refund
/// it, cancel it, capture it. Adyen's webhook then names the modification by the payment's own
/// merchant reference (none of Cashier's keys) and the payment by its PSP reference, as
/// `POST /sandbox/adyen/customer_area {"action":"refund"|"cancel"|"capture","psp_reference":"PSP…",
/// "amount":"5.00","outcome":"succeed"|"fail_later"}` makes it: `REFUND`, `CANCELLATION` or
/// `CAPTURE`, filed for replays under `{event} {modification reference}`. A refund that fails later
/// moves no money: its `REFUND` says `success` `"true"`, then `REFUND_FAILED` (filed under
/// `REFUND_FAILED {modification reference}`) takes it back — two deliveries, in either order.
extension AdyenSandbox {
    /// Does `action` to payment `psp` as the Customer Area would (`amount`: a refund's or a
    /// capture's, by default all that is left).
    /// - Returns: the modification's PSP reference.
    /// - Throws: `PaymentError` saying why it cannot be done.
    public func customerArea(
        _ action: String, psp: String, amount: Money? = nil, failLater: Bool = false, account: String = "CashierSandbox"
    )
        async throws -> String
    {
        func refused(_ why: String) -> PaymentError { PaymentError(.invalidRequest, provider: .applePay, why) }
        guard let entry = core.processor.entry(psp) else { throw refused("no payment \(psp)") }
        let reference = "MOD" + SecureRandom.alphanumeric(count: 13)
        let key = UUID().uuidString
        let event: String
        let value: Money
        switch action {
        case "refund":
            event = "REFUND"
            value = amount ?? entry.left
            guard value.isPositive, value.minorUnits <= entry.left.minorUnits else {
                throw refused("payment \(psp) has less than \(value) captured and not refunded")
            }
            if !failLater {
                guard case .succeeded? = try? await core.processor.refund(psp, amount: value, idempotencyKey: key) else {
                    throw refused("payment \(psp) cannot be refunded")
                }
            }
        case "cancel":
            event = "CANCELLATION"
            value = entry.amount
            guard entry.status == .authorized, case .succeeded? = try? await core.processor.void(psp, idempotencyKey: key) else {
                throw refused("payment \(psp) holds nothing uncaptured (it is \(entry.status.rawValue))")
            }
        case "capture":
            event = "CAPTURE"
            value = amount ?? entry.amount
            guard entry.status == .authorized, case .succeeded? = try? await core.processor.capture(psp, amount: value, idempotencyKey: key)
            else { throw refused("payment \(psp) holds nothing uncaptured (it is \(entry.status.rawValue))") }
        default: throw refused("the Customer Area refunds, cancels and captures")
        }
        var item = ApplePay.AdyenNotification(
            eventCode: event, success: true, pspReference: reference, originalReference: psp, merchantAccountCode: account,
            merchantReference: entry.merchantReference, value: value.minorUnits, currency: value.currency.code)
        announce(item, filedUnder: "\(event) \(reference)")
        if failLater && action == "refund" {
            item.eventCode = "REFUND_FAILED"
            item.reason = "Refund failed: the card account is closed"
            announce(item, filedUnder: "REFUND_FAILED \(reference)")
        }
        return reference
    }

    func registerCustomerArea(on router: inout Router) {
        router.add("POST", "/sandbox/adyen/customer_area") { request, _ in
            guard let object = SandboxControl.object(request),
                let action = object["action"] as? String, let psp = object["psp_reference"] as? String
            else {
                return SandboxControl.invalid(
                    #"expected {"action":"refund"|"cancel"|"capture","psp_reference":"PSP…","amount":"5.00","outcome":"succeed"|"fail_later"}"#
                )
            }
            guard let amount = self.requestedAmount(in: object, of: psp) else { return Self.invalidAmount }
            do {
                let reference = try await self.customerArea(
                    action, psp: psp, amount: amount, failLater: object["outcome"] as? String == "fail_later")
                return .json(["psp_reference": reference, "payment": psp, "action": action])
            } catch {
                return .error(status: 422, code: "invalid_request", message: (error as? PaymentError)?.message ?? "\(error)")
            }
        }
    }
}

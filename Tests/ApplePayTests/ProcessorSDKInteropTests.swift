import ApplePay
import Cashier
import CashierSandbox
import Foundation
import TestSupport
import Testing

/// Stripe's and Adyen's own Python SDKs (16.x, from PyPI, in .venv) against the sandbox's
/// simulators: Stripe's with `stripe.api_base` pointed at it, Adyen's with its services'
/// `baseUrl`. They create tokens, confirm, capture, cancel, refund, meet declines and a
/// PaymentIntent left `processing` (scripts/interop/processors.py), and the Adyen SDK's `/payments` body is compared field by
/// field with the one Cashier's ``ApplePay/AdyenProcessor`` builds. For recurring payments
/// (scripts/interop/recurring_processors.py) they store a card on a first payment, charge it
/// merchant-initiated with declines, and remove it.
@Suite struct ProcessorSDKInteropTests {
    /// Runs `scripts/interop/{script}` with the venv's Python, `config` on its stdin: its JSON summary.
    static func run(_ script: String, _ config: [String: Any]) async throws -> [String: Any]? {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let path = packageRoot.appendingPathComponent("scripts/interop/" + script).path
        let result = try await runSubprocess(python, [path], stdin: try JSONSerialization.data(withJSONObject: config))
        #expect(result.status == 0, "\(script) failed:\n\(result.stderr)")
        return try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    }

    @Test(.timeLimit(.minutes(3))) func stripeAndAdyenSDKsAgainstTheSandbox() async throws {
        let world = try await ProcessorTests.World()
        let authorization = try await world.authorization("33.00", reference: "ord_interop_body")
        let body = try world.adyen.paymentBody(authorization)
        let summary = try await Self.run(
            "processors.py", ["sandbox": world.sandbox.baseURL.absoluteString, "cashier_adyen_body": body])
        await world.stop()
        #expect(summary?["stripe_refunded"] as? Int == 1234)
        #expect(summary?["stripe_decline"] as? String == "insufficient_funds")
        #expect(summary?["stripe_live_key"] as? String == "refused")
        #expect(summary?["stripe_two_step"] as? String == "succeeded")
        #expect(summary?["stripe_dispute_events"] as? [String] == ["charge.dispute.created", "charge.dispute.funds_withdrawn"])
        #expect(summary?["stripe_processing_events"] as? [String] == ["payment_intent.payment_failed", "payment_intent.succeeded"])
        #expect(summary?["adyen_refusal"] as? String == "Expired Card")
        #expect(
            summary?["adyen_body_fields"] as? [String] == ["amount", "merchantAccount", "paymentMethod", "reference", "shopperInteraction"])
    }

    @Test(.timeLimit(.minutes(3))) func recurringPaymentsThroughStripeAndAdyenSDKs() async throws {
        let world = try await ProcessorTests.World()
        let body = world.adyen.chargeBody(
            ApplePay.StoredPaymentMethod(shopper: "agr_interop_body", method: "CASHIERBODY00001"),
            amount: try Money(decimal: "9.90", currency: .usd), reference: "ord_interop_mit", model: .subscription)
        let summary = try await Self.run(
            "recurring_processors.py", ["sandbox": world.sandbox.baseURL.absoluteString, "cashier_adyen_charge_body": body])
        await world.stop()
        #expect(summary?["stripe_mit_decline"] as? String == "insufficient_funds")
        #expect(summary?["stripe_mit_authentication"] as? String == "authentication_required")
        #expect(summary?["stripe_detached"] as? String == "payment_method_unexpected_state")
        #expect(
            summary?["stripe_recurring_events"] as? [String] == [
                "payment_intent.payment_failed", "payment_intent.succeeded", "payment_method.attached", "payment_method.detached",
            ])
        #expect(summary?["adyen_mit_refusal"] as? String == "Not enough balance")
        #expect(summary?["adyen_deleted"] as? String == "800")
        #expect(
            summary?["adyen_charge_fields"] as? [String] == [
                "amount", "merchantAccount", "paymentMethod", "recurringProcessingModel", "reference", "shopperInteraction",
                "shopperReference",
            ])
    }
}

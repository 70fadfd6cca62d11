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
/// field with the one Cashier's ``ApplePay/AdyenProcessor`` builds.
@Suite struct ProcessorSDKInteropTests {
    @Test(.timeLimit(.minutes(3))) func stripeAndAdyenSDKsAgainstTheSandbox() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let world = try await ProcessorTests.World()
        let authorization = try await world.authorization("33.00", reference: "ord_interop_body")
        let body = try world.adyen.paymentBody(authorization)
        let config: [String: Any] = ["sandbox": world.sandbox.baseURL.absoluteString, "cashier_adyen_body": body]
        let script = packageRoot.appendingPathComponent("scripts/interop/processors.py").path
        let result = try await runSubprocess(python, [script], stdin: try JSONSerialization.data(withJSONObject: config))
        await world.stop()
        #expect(result.status == 0, "processor SDK interop failed:\n\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
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
}

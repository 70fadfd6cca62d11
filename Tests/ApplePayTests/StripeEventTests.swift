import ApplePay
import Cashier
import Foundation
import TestSupport
import Testing

/// Stripe's webhook events: the `Stripe-Signature` header (`t=…,v1=…`, HMAC-SHA256 under the
/// endpoint's `whsec_…` over `{t}.{body}`) checked before anything is read, and a stale one refused.
@Suite struct StripeEventTests {
    static let secret = "whsec_test_secret"
    static let body = Data(
        #"{"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","object":"event","type":"charge.dispute.funds_withdrawn","livemode":false,"data":{"object":{"id":"dp_1NG8Du2eZvKYlo2C","object":"dispute","amount":1000,"currency":"usd","payment_intent":"pi_3NG8Ds2eZvKYlo2C","status":"needs_response","reason":"fraudulent","metadata":{}}}}"#
            .utf8)
    static let time = Date(timeIntervalSince1970: 1_686_089_970)
    /// Stripe's Python library (16.1.0) gives this signature: `stripe.WebhookSignature._compute_signature("1686089970." + body, secret)`.
    static let published = "t=1686089970,v1=17c9c84b30252df1cc0a86901be117e7dcac17f705835b5b938f17f7aacebef7"

    @Test func theSignatureIsStripesKnownAnswer() throws {
        #expect(try ApplePay.StripeEvent.signatureHeader(for: Self.body, secret: Self.secret, timestamp: Self.time) == Self.published)
        let event = try ApplePay.StripeEvent.verified(
            Self.body, signatureHeader: Self.published, secret: Self.secret, now: Self.time.addingTimeInterval(60))
        #expect(event.id == "evt_1NG8Du2eZvKYlo2CUI79vXWy" && event.type == "charge.dispute.funds_withdrawn")
        #expect(
            event.object
                == .init(
                    id: "dp_1NG8Du2eZvKYlo2C", kind: "dispute", paymentIntent: "pi_3NG8Ds2eZvKYlo2C", amount: 1000, currency: "USD",
                    status: "needs_response", reason: "fraudulent"))
    }

    @Test func aTamperedStaleOrUnsignedEventIsRefused() throws {
        func refused(_ body: Data = Self.body, header: String? = Self.published, secret: String = Self.secret, after: TimeInterval = 60)
            -> PaymentError.Code?
        {
            do {
                _ = try ApplePay.StripeEvent.verified(
                    body, signatureHeader: header, secret: secret, now: Self.time.addingTimeInterval(after))
                return nil
            } catch {
                return (error as? PaymentError)?.code
            }
        }
        #expect(refused() == nil)
        let tampered = Data(String(decoding: Self.body, as: UTF8.self).replacingOccurrences(of: "1000", with: "9000").utf8)
        #expect(refused(tampered) == .signatureMismatch)
        #expect(refused(secret: "whsec_other_secret") == .signatureMismatch)
        // The timestamp is signed: moving it forward breaks the signature; an old delivery is a replay.
        #expect(refused(header: Self.published.replacingOccurrences(of: "t=1686089970", with: "t=1686099970")) == .signatureMismatch)
        #expect(refused(after: 301) == .signatureMismatch)
        #expect(refused(after: 299) == nil)
        #expect(refused(header: nil) == .malformedMessage)
        #expect(refused(header: "t=1686089970") == .malformedMessage)
        #expect(refused(header: Self.published.replacingOccurrences(of: "v1=", with: "v0=")) == .malformedMessage)
        // While a secret is rolled Stripe signs with both: one matching v1 is enough.
        #expect(refused(header: "t=1686089970,v1=" + String(repeating: "ab", count: 32) + "," + Self.published.dropFirst(13)) == nil)
        #expect(refused(secret: "") == .invalidConfiguration)
        // Signed, but not an event.
        let notAnEvent = Data(#"{"id":"evt_1"}"#.utf8)
        let header = try ApplePay.StripeEvent.signatureHeader(for: notAnEvent, secret: Self.secret, timestamp: Self.time)
        #expect(refused(notAnEvent, header: header) == .malformedMessage)
        let fractional = Data(String(decoding: Self.body, as: UTF8.self).replacingOccurrences(of: "1000", with: "10.5").utf8)
        #expect(
            refused(
                fractional, header: try ApplePay.StripeEvent.signatureHeader(for: fractional, secret: Self.secret, timestamp: Self.time))
                == .malformedMessage)
    }

    @Test func aRefundEventKeepsItsMetadataAndFailureReason() throws {
        let body = Data(
            #"{"id":"evt_2","type":"charge.refund.updated","data":{"object":{"id":"re_1","object":"refund","amount":700,"currency":"cny","payment_intent":"pi_1","status":"failed","failure_reason":"expired_or_canceled_card","metadata":{"cashier_refund":"cashier_R1_refund"}}}}"#
                .utf8)
        let event = try ApplePay.StripeEvent.verified(
            body, signatureHeader: try ApplePay.StripeEvent.signatureHeader(for: body, secret: Self.secret), secret: Self.secret)
        #expect(
            event.object
                == .init(
                    id: "re_1", kind: "refund", paymentIntent: "pi_1", amount: 700, currency: "CNY", status: "failed",
                    reason: "expired_or_canceled_card", metadata: ["cashier_refund": "cashier_R1_refund"]))
    }

    /// Stripe's Python library (16.x, in .venv) verifies what Cashier signs, and Cashier verifies what it signs.
    @Test(.timeLimit(.minutes(2))) func stripesPythonLibraryAgrees() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let ours = try ApplePay.StripeEvent.signatureHeader(for: Self.body, secret: Self.secret)
        let script = """
            import json, sys, time, stripe
            given = json.load(sys.stdin)
            event = stripe.Webhook.construct_event(given["body"], given["header"], given["secret"])
            try:
                stripe.Webhook.construct_event(given["body"].replace("1000", "9000"), given["header"], given["secret"])
                tampered = "accepted"
            except stripe.SignatureVerificationError:
                tampered = "refused"
            theirs = '{"id":"evt_py","object":"event","type":"refund.failed","data":{"object":{"id":"re_py","object":"refund","amount":990,"currency":"cny","status":"failed","metadata":{}}}}'
            t = int(time.time())
            header = "t=%d,v1=%s" % (t, stripe.WebhookSignature._compute_signature("%d.%s" % (t, theirs), given["secret"]))
            print(json.dumps({"ours": event["type"], "tampered": tampered, "theirs": theirs, "header": header}))
            """
        let input = try JSONSerialization.data(withJSONObject: [
            "body": String(decoding: Self.body, as: UTF8.self), "header": ours, "secret": Self.secret,
        ])
        let result = try await runSubprocess(python, ["-c", script], stdin: input)
        try #require(result.status == 0, "\(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
        #expect(answer["ours"] == "charge.dispute.funds_withdrawn" && answer["tampered"] == "refused")
        let theirs = try ApplePay.StripeEvent.verified(
            Data(try #require(answer["theirs"]).utf8), signatureHeader: answer["header"], secret: Self.secret)
        #expect(theirs.type == "refund.failed" && theirs.object.amount == 990)
        #expect(throws: PaymentError.self) {
            try ApplePay.StripeEvent.verified(
                Data(try #require(answer["theirs"]).utf8), signatureHeader: answer["header"], secret: "whsec_x")
        }
    }
}

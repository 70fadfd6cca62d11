import ApplePay
import Cashier
import CashierSandbox
import Foundation
import Testing

@testable import CashierServer
@testable import CashierStore

/// `ApplePayAdapter` as a `Recurring` adapter against the sandbox's Stripe and Adyen: the launch
/// is the payment request with its `recurringPaymentRequest`; the token authorises the first
/// payment and stores the card (the agreement active, its provider number the stored method);
/// merchant-initiated charges pay or decline (insufficient funds retryable, a card no longer held
/// not); terminating detaches the card, and the processor's view says so.
@Suite struct ApplePayRecurringAdapterTests {
    struct World {
        let sandbox: SandboxServer
        let merchant: ApplePay.MerchantKey

        init() async throws {
            sandbox = SandboxServer(wechatMerchants: [])
            try sandbox.start()
            merchant = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.recurring")
            try await sandbox.applePay.register(merchantCertificate: merchant.certificate)
            sandbox.registerProcessingKey(merchant)
        }

        var processors: [(String, any ApplePay.PaymentProcessor)] {
            [
                ("stripe", ApplePay.StripeProcessor(secretKey: "sk_test_recurring", baseURL: sandbox.stripeURL, backoff: .milliseconds(5))),
                (
                    "adyen",
                    ApplePay.AdyenProcessor(
                        apiKey: "AQE_recurring", merchantAccount: "CashierRecurring", baseURL: sandbox.adyenURL, backoff: .milliseconds(5))
                ),
            ]
        }

        func adapter(_ processor: any ApplePay.PaymentProcessor) throws -> ApplePayAdapter {
            ApplePayAdapter(
                configuration: .init(
                    merchantIdentifier: "merchant.com.example.recurring", countryCode: try CountryCode(alpha2: "US"),
                    displayName: "Example Co.", supportedNetworks: [.visa, .masterCard],
                    verifier: try ApplePay.TokenVerifier(trustAnchors: [sandbox.applePay.ca.root]), decrypter: nil, processor: processor))
        }

        /// A token for `amount`, bound to `agreement` as the launch's request binds it.
        func token(_ amount: Money, for agreement: StoredAgreement, card: String = "4111111111111111") async throws -> Data {
            var minted = ApplePayTokenMinter.Card()
            minted.accountNumber = card
            return try await sandbox.applePay.mintPayment(amount: amount, card: minted, applicationData: Array(agreement.id.utf8))
        }
    }

    static let fee = Money(minorUnits: 990, currency: .usd)

    static func agreement(
        _ id: String, status: StoredAgreement.Status = .pending, providerAgreementID: String? = nil,
        unit: StoredAgreement.PeriodUnit = .month
    ) -> StoredAgreement {
        StoredAgreement(
            id: id, merchant: nil, provider: "applepay", method: "applepay", externalNo: "ext_" + id,
            providerAgreementID: providerAgreementID,
            payer: nil, planID: nil, description: "Example Pro", periodUnit: unit, periodCount: 1, singleLimit: fee, firstChargeAt: nil,
            status: status, providerState: nil, endReason: nil, version: 1, createdAt: Date(), updatedAt: Date(), activatedAt: nil,
            endedAt: nil)
    }

    static func payment(_ number: String, amount: Money = fee) -> (StoredPayment, StoredOrder) {
        let order = StoredOrder(
            id: "ord_" + number, outTradeNo: number, status: .created, total: amount, refunded: .zero(amount.currency),
            description: "Example Pro", metadataJSON: "{}", itemsJSON: "[]", clientSecret: "s", refundRequired: false, version: 1,
            createdAt: Date(), expiresAt: nil, settledPaymentID: nil)
        let payment = StoredPayment(
            id: "pay_" + number, orderID: order.id, method: .applePay, provider: .applePay, outTradeNo: number, appID: nil, merchantID: nil,
            payer: nil, transactionID: nil, walletToken: nil, amount: amount, refunded: .zero(amount.currency),
            reserved: .zero(amount.currency), status: .processing, refundRequired: false, failureReason: nil, createdAt: Date(),
            updatedAt: Date(), succeededAt: nil)
        return (payment, order)
    }

    @Test func theLaunchIsThePaymentRequestWithItsRecurringRequest() async throws {
        let world = try await World()
        let adapter = try world.adapter(world.processors[0].1)
        #expect(adapter.signingMethods == [.applePay] && adapter.recurringMerchantID == "merchant.com.example.recurring")
        let agreement = Self.agreement("agr_launch", unit: .week)
        guard
            case .applePayRequest(let json) = try await adapter.signAgreement(
                agreement, notifyURL: "https://cashier.example/notify", returnURL: "https://example.com/account")
        else { throw PaymentError(.invalidRequest, "not an Apple Pay launch") }
        let request = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(json)) as? [String: Any])
        #expect((request["total"] as? [String: Any])?["amount"] as? String == "9.90")
        #expect(request["applicationData"] as? String == Data("agr_launch".utf8).base64EncodedString())
        let recurring = try #require(request["recurringPaymentRequest"] as? [String: Any])
        #expect(recurring["paymentDescription"] as? String == "Example Pro")
        #expect(recurring["managementURL"] as? String == "https://example.com/account")
        let billing = try #require(recurring["regularBilling"] as? [String: Any])
        #expect(billing["amount"] as? String == "9.90" && billing["paymentTiming"] as? String == "recurring")
        // Apple Pay counts no weeks: a week is seven days.
        #expect(billing["recurringPaymentIntervalUnit"] as? String == "day" && billing["recurringPaymentIntervalCount"] as? Int == 7)
        // The sheet can read it back (the app's own parser holds it to Apple's rules).
        _ = try ApplePay.Commitment(json: request, currency: .usd)

        // Apple Pay needs a management URL.
        await #expect(throws: PaymentError.self) {
            try await adapter.signAgreement(agreement, notifyURL: "https://cashier.example/notify", returnURL: nil)
        }
        await world.sandbox.stop()
    }

    @Test func signChargeDeclineAndTerminateThroughBothProcessors() async throws {
        let world = try await World()
        for (name, processor) in world.processors {
            let adapter = try world.adapter(processor)
            let pending = Self.agreement("agr_\(name)")
            #expect(try await adapter.agreementProgress(pending) == nil, "\(name): nothing stored before the first payment")
            let (first, firstOrder) = Self.payment("\(name)_1")
            let signed = try await adapter.authorizeFirstCharge(
                first, order: firstOrder, under: pending, token: try await world.token(Self.fee, for: pending))
            guard case .paid(let amount, let reference?) = signed.charge else {
                Issue.record("\(name): \(signed)")
                continue
            }
            #expect(amount == Self.fee && !reference.isEmpty)
            let stored = try #require(signed.agreement.providerAgreementID.flatMap(ApplePay.StoredPaymentMethod.init(reference:)))
            #expect(signed.agreement.status == .active && signed.agreement.payer == stored.shopper, "\(name): \(signed.agreement)")
            #expect(name == "stripe" ? stored.shopper.hasPrefix("cus_") : stored.shopper == "ext_agr_\(name)", "\(stored)")
            let active = Self.agreement("agr_\(name)", status: .active, providerAgreementID: signed.agreement.providerAgreementID)
            #expect(try await adapter.agreementProgress(active)?.status == .active)

            // Merchant-initiated: paid; then declined for insufficient funds (retryable); then paid again.
            let (second, secondOrder) = Self.payment("\(name)_2")
            guard case .paid(_, let secondReference?) = try await adapter.charge(second, order: secondOrder, under: active, notifyURL: "")
            else {
                Issue.record("\(name): the second charge")
                continue
            }
            #expect(secondReference != reference)
            let control =
                name == "stripe"
                ? "/sandbox/stripe/payment_methods/\(stored.method)/decline"
                : "/sandbox/adyen/stored_payment_methods/\(stored.method)/decline"
            let set = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: URL(string: world.sandbox.baseURL.absoluteString.trimmingCharacters(in: ["/"]) + control)!,
                    headers: ["Content-Type": "application/json"], body: Data(#"{"code":"insufficient_funds"}"#.utf8)))
            #expect(set.status == 200)
            let (third, thirdOrder) = Self.payment("\(name)_3")
            let declined = try await adapter.charge(third, order: thirdOrder, under: active, notifyURL: "")
            guard case .declined(let why, let retryable) = declined else {
                Issue.record("\(name): \(declined)")
                continue
            }
            #expect(retryable && why.hasPrefix("insufficient_funds"), "\(name): \(why)")
            let (retry, retryOrder) = Self.payment("\(name)_3b")
            guard case .paid = try await adapter.charge(retry, order: retryOrder, under: active, notifyURL: "") else {
                Issue.record("\(name): the retry")
                continue
            }

            // Terminated: the card is detached; the processor's view says so; a charge is declined for good.
            let ended = try await adapter.terminateAgreement(active, remark: "the payer cancelled")
            #expect(ended.status == .terminated && ended.providerState == "detached" && ended.reason == "the payer cancelled")
            #expect(try await adapter.agreementProgress(active)?.status == .terminated)
            let (late, lateOrder) = Self.payment("\(name)_4")
            let refused = try await adapter.charge(late, order: lateOrder, under: active, notifyURL: "")
            guard case .declined(let lateWhy, false) = refused, lateWhy.hasPrefix("payment_method_unavailable") else {
                Issue.record("\(name): a detached card charged: \(refused)")
                continue
            }
            #expect(try await adapter.terminateAgreement(active, remark: "again").providerState == "already_detached")
            // A terminated agreement is not charged at all.
            let terminated = Self.agreement("agr_\(name)", status: .terminated, providerAgreementID: active.providerAgreementID)
            await #expect(throws: PaymentError.self) {
                try await adapter.charge(late, order: lateOrder, under: terminated, notifyURL: "")
            }
        }
        await world.sandbox.stop()
    }

    /// A first payment Stripe leaves `processing`: accepted, the agreement still `pending` (naming
    /// the card Stripe will attach) until Stripe decides; then the processor's view makes it active.
    @Test func aFirstPaymentStripeLeavesProcessingActivatesOnceDecided() async throws {
        let world = try await World()
        let stripe = world.processors[0].1
        let adapter = try world.adapter(stripe)
        let agreement = Self.agreement("agr_processing")
        let amount = Money(minorUnits: 1956, currency: .usd)
        let (payment, order) = Self.payment("processing_1", amount: amount)
        let answer = try await adapter.authorizeFirstCharge(
            payment, order: order, under: agreement, token: try await world.token(amount, for: agreement))
        #expect(answer.charge == .accepted && answer.agreement.status == .pending, "\(answer)")
        let reference = try #require(answer.agreement.providerAgreementID)
        let pending = Self.agreement("agr_processing", providerAgreementID: reference)
        #expect(try await adapter.agreementProgress(pending)?.status == .pending)
        let intent = try #require(
            try await stripe.payments(from: Date().addingTimeInterval(-600), to: Date().addingTimeInterval(600))?.first {
                $0.merchantReference == "processing_1"
            })
        #expect(await world.sandbox.stripe.decide(intent.reference, succeeded: true) == nil)
        let decided = try #require(try await adapter.agreementProgress(pending))
        #expect(decided.status == .active && decided.providerAgreementID == reference, "\(decided)")
        await world.sandbox.stop()
    }

    @Test func aDeclinedOrForeignFirstPaymentActivatesNothing() async throws {
        let world = try await World()
        for (name, processor) in world.processors {
            let adapter = try world.adapter(processor)
            let agreement = Self.agreement("agr_poor_\(name)")
            let (payment, order) = Self.payment("\(name)_poor")
            let declined = try await adapter.authorizeFirstCharge(
                payment, order: order, under: agreement, token: try await world.token(Self.fee, for: agreement, card: "4000000000009995"))
            #expect(declined.agreement.status == .failed && declined.agreement.providerAgreementID == nil, "\(name): \(declined)")
            guard case .declined(_, true) = declined.charge else {
                Issue.record("\(name): \(declined.charge)")
                continue
            }
            // A token bound to another agreement is refused before the processor hears of it.
            let other = Self.agreement("agr_other_\(name)")
            let (again, againOrder) = Self.payment("\(name)_other")
            await #expect(throws: PaymentError.self) {
                try await adapter.authorizeFirstCharge(
                    again, order: againOrder, under: agreement, token: try await world.token(Self.fee, for: other))
            }
        }
        // A processor that stores no cards cannot charge merchant-initiated.
        let plain = try world.adapter(ApplePay.SandboxProcessor())
        let (payment, order) = Self.payment("plain")
        await #expect(throws: PaymentError.self) {
            try await plain.charge(
                payment, order: order, under: Self.agreement("agr_plain", status: .active, providerAgreementID: "cus_1/pm_1"), notifyURL: ""
            )
        }
        await world.sandbox.stop()
    }
}

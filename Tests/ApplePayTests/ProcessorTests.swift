import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import CashierSandbox
import Foundation
import Synchronization
import Testing

/// Cashier's Stripe and Adyen processors against the sandbox's simulators of their APIs: paying,
/// declining, capturing (all or part), voiding, refunding (full and partial, never beyond what
/// was taken), an outage in the middle of a call (the retry reuses the idempotency key and
/// nothing is charged twice), a processor that stays down, and refused credentials.
@Suite struct ProcessorTests {
    /// A sandbox with a merchant whose processing key its Stripe and Adyen hold.
    struct World {
        let sandbox: SandboxServer
        let merchant: ApplePay.MerchantKey

        init() async throws {
            sandbox = SandboxServer(wechatMerchants: [])
            try sandbox.start()
            merchant = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.processors")
            try await sandbox.applePay.register(merchantCertificate: merchant.certificate)
            sandbox.registerProcessingKey(merchant)
        }

        var stripe: ApplePay.StripeProcessor {
            ApplePay.StripeProcessor(secretKey: "sk_test_processors", baseURL: sandbox.stripeURL, backoff: .milliseconds(5))
        }

        var adyen: ApplePay.AdyenProcessor {
            ApplePay.AdyenProcessor(
                apiKey: "AQE_processors", merchantAccount: "CashierTest", baseURL: sandbox.adyenURL, backoff: .milliseconds(5))
        }

        func authorization(_ amount: String, card: String = "4111111111111111", capture: Bool = true, reference: String = UUID().uuidString)
            async throws -> ApplePay.ProcessorAuthorization
        {
            let money = try Money(decimal: amount, currency: .usd)
            var minted = ApplePayTokenMinter.Card()
            minted.accountNumber = card
            let payment = try await sandbox.applePay.mintPayment(amount: money, card: minted)
            return ApplePay.ProcessorAuthorization(
                amount: money, reference: reference, idempotencyKey: "key_" + reference, capture: capture,
                token: try ApplePay.PaymentToken(json: payment))
        }

        func stop() async { await sandbox.stop() }
    }

    static func processors(_ world: World) -> [(String, any ApplePay.PaymentProcessor, ProcessorSandbox)] {
        [("stripe", world.stripe, world.sandbox.stripe.core), ("adyen", world.adyen, world.sandbox.adyen.core)]
    }

    @Test func payRefundCaptureAndVoidThroughBoth() async throws {
        let began = Date()
        let world = try await World()
        for (name, processor, simulator) in Self.processors(world) {
            #expect(processor.tokenForm == .encrypted)
            // What the payment's state refuses: Stripe refuses it at once; Adyen answers `received`
            // and refuses it by webhook. Either way nothing moves (checked against the ledger below).
            func refused(_ operation: ApplePay.ProcessorOperation) -> Bool {
                switch operation {
                case .refused: name == "stripe"
                case .succeeded: name == "adyen"
                case .pending: false
                }
            }
            // Paid and refunded: part, then the rest; a cent more is refused.
            let paid = try await processor.authorize(try await world.authorization("46.00"))
            guard case .authorized(let reference) = paid else {
                Issue.record("\(name): \(paid)")
                continue
            }
            #expect(simulator.processor.entry(reference)?.status == .captured, "\(name)")
            let usd = { (text: String) in try Money(decimal: text, currency: .usd) }
            guard case .succeeded = try await processor.refund(reference, amount: try usd("6.00"), idempotencyKey: "\(name)-r1") else {
                Issue.record("\(name): partial refund")
                continue
            }
            guard case .succeeded = try await processor.refund(reference, amount: try usd("40.00"), idempotencyKey: "\(name)-r2") else {
                Issue.record("\(name): the rest")
                continue
            }
            guard refused(try await processor.refund(reference, amount: try usd("0.01"), idempotencyKey: "\(name)-r3")) else {
                Issue.record("\(name): a refund beyond the payment was accepted")
                continue
            }
            let fortySix = try usd("46.00")
            #expect(simulator.processor.entry(reference)?.refunded == fortySix, "\(name)")
            // Held, then captured in part: the rest is released.
            guard case .authorized(let held) = try await processor.authorize(try await world.authorization("20.00", capture: false)) else {
                Issue.record("\(name): manual capture")
                continue
            }
            #expect(simulator.processor.entry(held)?.status == .authorized, "\(name)")
            guard refused(try await processor.refund(held, amount: try usd("1.00"), idempotencyKey: "\(name)-early")) else {
                Issue.record("\(name): refunded before capture")
                continue
            }
            guard case .succeeded = try await processor.capture(held, amount: try usd("15.00"), idempotencyKey: "\(name)-c1") else {
                Issue.record("\(name): capture")
                continue
            }
            let captured = simulator.processor.entry(held)
            let fifteen = try usd("15.00")
            #expect(captured?.status == .captured && captured?.captured == fifteen, "\(name)")
            guard refused(try await processor.void(held, idempotencyKey: "\(name)-late")) else {
                Issue.record("\(name): voided after capture")
                continue
            }
            // Held, then voided.
            guard case .authorized(let voided) = try await processor.authorize(try await world.authorization("30.00", capture: false))
            else {
                Issue.record("\(name): second hold")
                continue
            }
            guard case .succeeded = try await processor.void(voided, idempotencyKey: "\(name)-v1") else {
                Issue.record("\(name): void")
                continue
            }
            #expect(simulator.processor.entry(voided)?.status == .voided, "\(name)")
            // Declines, as the device should show them.
            let declined = try await processor.authorize(try await world.authorization("9.00", card: "4000000000009995"))
            #expect(declined == .declined(.insufficientFunds, message: declined.message), "\(name): \(declined)")
            let expired = try await processor.authorize(try await world.authorization("9.00", card: "4000000000000069"))
            #expect(expired.status == .failure && { if case .declined(.expiredCard, _) = expired { true } else { false } }(), "\(name)")
            let billing = try await processor.authorize(try await world.authorization("9.52"))
            #expect(billing.status == .invalidBillingPostalAddress, "\(name): \(billing)")
        }
        // Stripe lists its PaymentIntents for reconciliation; Adyen's API has no such list.
        // From the test's start: under load the payments above can take minutes.
        let listed = try #require(try await world.stripe.payments(from: began.addingTimeInterval(-60), to: Date().addingTimeInterval(60)))
        #expect(listed.count == 3 && listed.allSatisfy { $0.merchantReference != nil })
        #expect(listed.contains { $0.status == "canceled" } && listed.contains { $0.captured.minorUnits == 1500 })
        #expect(try await world.adyen.payments(from: Date(), to: Date()) == nil)
        // With a report user's key, Adyen's daily Payment accounting report lists them.
        let reports = ApplePay.AdyenProcessor(
            apiKey: "AQE_processors", merchantAccount: "CashierTest", baseURL: world.sandbox.adyenURL,
            reports: .init(baseURL: world.sandbox.adyenReportsURL, apiKey: "AQE_reports"))
        let booked = try #require(try await reports.payments(from: began.addingTimeInterval(-60), to: Date().addingTimeInterval(60)))
        let atAdyen = world.sandbox.adyen.core.processor.entries
        #expect(booked.map(\.reference) == atAdyen.map(\.reference) && booked.count == 3)
        for (listed, entry) in zip(booked, atAdyen) {
            #expect(listed.authorized == entry.amount && listed.captured == entry.captured && listed.refunded == entry.refunded)
            #expect(listed.merchantReference == entry.merchantReference)
            #expect(
                (listed.status == "voided") == (entry.status == .voided) && (listed.status == "captured") == (entry.status == .captured))
        }
        let unkeyed = ApplePay.AdyenProcessor(
            apiKey: "AQE", merchantAccount: "CashierTest", baseURL: world.sandbox.adyenURL,
            reports: .init(baseURL: world.sandbox.adyenReportsURL, apiKey: ""))
        let refused = await #expect(throws: PaymentError.self) {
            _ = try await unkeyed.payments(from: Date(), to: Date().addingTimeInterval(1))
        }
        #expect(refused?.code == .invalidConfiguration)
        await world.stop()
    }

    /// The reply to an authorisation is lost after the processor acted: the retry carries the same
    /// idempotency key and gets the first answer — one charge, not two. A processor that stays
    /// down (an amount ending in 99 answers 500 every time) ends in `.transport`: unknown.
    @Test func anOutageMidCallNeverChargesTwice() async throws {
        let world = try await World()
        for (name, processor, simulator) in Self.processors(world) {
            let before = simulator.processor.entries.count
            let acted = simulator.processedCount
            world.sandbox.setFault(.lostReplies(1))
            let decision = try await processor.authorize(try await world.authorization("12.00"))
            guard case .authorized(let reference) = decision else {
                Issue.record("\(name): \(decision)")
                continue
            }
            #expect(simulator.processor.entries.count == before + 1, "\(name): charged \(simulator.processor.entries.count - before) times")
            #expect(simulator.processedCount > acted, "\(name)")
            world.sandbox.setFault(.lostReplies(1))
            guard
                case .succeeded = try await processor.refund(
                    reference, amount: Money(minorUnits: 500, currency: .usd), idempotencyKey: "\(name)-lost")
            else {
                Issue.record("\(name): refund after a lost reply")
                continue
            }
            #expect(simulator.processor.entry(reference)?.refunded.minorUnits == 500, "\(name): refunded twice?")
            let down = await #expect(throws: PaymentError.self) {
                _ = try await processor.authorize(try await world.authorization("12.99"))
            }
            #expect(down?.code == .transport && down?.message.contains("same idempotency key") == true, "\(name)")
            #expect(simulator.processor.entries.count == before + 1, "\(name): an outage charged")
        }
        await world.stop()
    }

    /// A key the processor refuses is a configuration mistake, said as one; a key reused with
    /// another body is refused by the processor rather than acted on.
    @Test func credentialsAndIdempotencyKeysAreChecked() async throws {
        let world = try await World()
        let live = ApplePay.StripeProcessor(secretKey: "sk_live_wrong", baseURL: world.sandbox.stripeURL)
        let refused = await #expect(throws: PaymentError.self) { _ = try await live.authorize(try await world.authorization("5.00")) }
        #expect(refused?.code == .invalidConfiguration && refused?.message.contains("Stripe refused the API key") == true)
        let noKey = ApplePay.AdyenProcessor(apiKey: "", merchantAccount: "CashierTest", baseURL: world.sandbox.adyenURL)
        let adyenRefused = await #expect(throws: PaymentError.self) { _ = try await noKey.authorize(try await world.authorization("5.00")) }
        #expect(adyenRefused?.code == .invalidConfiguration)
        var first = try await world.authorization("5.00", reference: "same")
        guard case .authorized = try await world.adyen.authorize(first) else {
            Issue.record("first authorisation")
            return
        }
        first.amount = Money(minorUnits: 600, currency: .usd)
        let reused = await #expect(throws: PaymentError.self) { _ = try await world.adyen.authorize(first) }
        #expect(reused?.code == .providerRejected && reused?.message.contains("Idempotency") == true)
        await world.stop()
    }

    /// What Cashier sends Stripe: the token as Stripe's iOS SDK sends it, then the PaymentIntent —
    /// each with its idempotency key, the secret key as a bearer token.
    @Test func stripeRequestsAreStripesWireFormat() async throws {
        let world = try await World()
        let recorder = Recorder()
        let stripe = ApplePay.StripeProcessor(secretKey: "sk_test_wire", baseURL: world.sandbox.stripeURL, transport: recorder)
        let authorization = try await world.authorization("46.00", capture: false, reference: "ord_wire")
        _ = try await stripe.authorize(authorization)
        // A call whose reply was slow is sent again with the same key (by design): count each key once.
        var seenKeys = Set<String>()
        let requests = recorder.requests.withLock { $0 }.filter { seenKeys.insert($0.headers["Idempotency-Key"] ?? "").inserted }
        #expect(requests.map(\.url.path) == ["/stripe/v1/tokens", "/stripe/v1/payment_intents"])
        #expect(requests.allSatisfy { $0.headers["Authorization"] == "Bearer sk_test_wire" })
        #expect(requests.map { $0.headers["Idempotency-Key"] } == ["key_ord_wire-token", "key_ord_wire"])
        let token = Self.form(requests[0].body)
        #expect(token["pk_token_payment_network"] == "Visa" && token["pk_token_instrument_name"]?.hasPrefix("Visa ") == true)
        #expect(token["pk_token_transaction_id"] == authorization.token.transactionIdentifier)
        let pkToken = try ApplePay.PaymentToken(json: Data((token["pk_token"] ?? "").utf8))
        #expect(pkToken.data == authorization.token.data && pkToken.signature == authorization.token.signature)
        #expect(pkToken.header == authorization.token.header && pkToken.version == authorization.token.version)
        let intent = Self.form(requests[1].body)
        #expect(intent["amount"] == "4600" && intent["currency"] == "usd" && intent["confirm"] == "true")
        #expect(intent["capture_method"] == "manual" && intent["payment_method_data[type]"] == "card")
        #expect(intent["payment_method_data[card][token]"]?.hasPrefix("tok_") == true && intent["metadata[cashier_payment]"] == "ord_wire")
        await world.stop()
    }

    /// A capture or void sent again after Stripe forgot its idempotency key (24 hours) is refused
    /// there as already done: the PaymentIntent shows it was, so it succeeded. One Stripe refuses
    /// for another reason (a capture of a voided payment, another amount) stays refused.
    @Test func aCaptureOrVoidRetriedAfterStripeForgotItsKeyIsDone() async throws {
        let world = try await World()
        let stripe = world.stripe
        let usd = { (text: String) in try Money(decimal: text, currency: .usd) }
        guard case .authorized(let held) = try await stripe.authorize(try await world.authorization("25.00", capture: false)),
            case .authorized(let other) = try await stripe.authorize(try await world.authorization("9.00", capture: false))
        else { throw PaymentError(.invalidRequest, "no authorisation") }
        guard case .succeeded = try await stripe.capture(held, amount: try usd("20.00"), idempotencyKey: "cap-1"),
            case .succeeded = try await stripe.void(other, idempotencyKey: "void-1")
        else { throw PaymentError(.invalidRequest, "the first capture and void") }
        world.sandbox.stripe.core.forgetIdempotencyKeys()
        #expect(try await stripe.capture(held, amount: try usd("20.00"), idempotencyKey: "cap-1") == .succeeded(reference: held))
        #expect(try await stripe.void(other, idempotencyKey: "void-1") == .succeeded(reference: other))
        // Not what was done: refused, as Stripe says.
        guard case .refused = try await stripe.capture(held, amount: try usd("25.00"), idempotencyKey: "cap-2") else {
            Issue.record("a capture of another amount after the capture was accepted")
            return
        }
        guard case .refused = try await stripe.capture(other, amount: try usd("9.00"), idempotencyKey: "cap-3"),
            case .refused = try await stripe.void(held, idempotencyKey: "void-2")
        else {
            Issue.record("a capture of a voided payment, or a void of a captured one, was accepted")
            return
        }
        #expect(world.sandbox.stripe.core.processor.entry(held)?.captured == (try usd("20.00")))
        await world.stop()
    }

    /// Whether Stripe still holds an authorisation, as Cashier asks when a capture is refused: a held
    /// one and a captured one have not ended; one Cashier voided was cancelled (not lapsed: Cashier
    /// says `requested_by_customer`); one the
    /// hold ran out on lapsed (`cancellation_reason` `automatic`). Adyen cannot be asked.
    @Test func whetherStripeStillHoldsAnAuthorisation() async throws {
        let world = try await World()
        let stripe = world.stripe
        var held: [String] = []
        for amount in ["5.00", "6.00", "7.00", "8.00"] {
            guard case .authorized(let reference) = try await stripe.authorize(try await world.authorization(amount, capture: false))
            else { throw PaymentError(.invalidRequest, "no authorisation") }
            held.append(reference)
        }
        guard case .succeeded = try await stripe.capture(held[1], amount: try Money(decimal: "6.00", currency: .usd), idempotencyKey: "c"),
            case .succeeded = try await stripe.void(held[2], idempotencyKey: "v")
        else { throw PaymentError(.invalidRequest, "the capture and the void") }
        #expect(await world.sandbox.stripe.expire(held[3]) == nil)
        #expect(try await stripe.authorizationEnded(held[0]) == nil)
        #expect(try await stripe.authorizationEnded(held[1]) == nil)
        #expect(
            try await stripe.authorizationEnded(held[2])
                == ApplePay.AuthorizationEnd(processor: "Stripe", lapsed: false, reason: "requested_by_customer"))
        #expect(
            try await stripe.authorizationEnded(held[3])
                == ApplePay.AuthorizationEnd(processor: "Stripe", lapsed: true, reason: "automatic"))
        await #expect(throws: PaymentError.self) { try await stripe.authorizationEnded("pi_nothing") }
        #expect(try await world.adyen.authorizationEnded(held[0]) == nil)
        await world.stop()
    }

    /// Stripe's lists page after the last id of the page before, found among every object (not
    /// only those the filter keeps); an id that names none is `resource_missing`, not the first
    /// page again (a client paging on would never stop).
    @Test func stripesListsPageAfterACursorAndRefuseAnUnknownOne() async throws {
        let world = try await World()
        var intents: [String] = []
        for amount in ["5.00", "6.00", "7.00"] {
            guard case .authorized(let reference) = try await world.stripe.authorize(try await world.authorization(amount))
            else { throw PaymentError(.invalidRequest, "no payment") }
            intents.append(reference)
            _ = try await world.stripe.refund(
                reference, amount: try Money(decimal: "1.00", currency: .usd), idempotencyKey: "r" + reference)
        }
        func list(_ query: String) async throws -> (status: Int, json: [String: Any]) {
            let answer = try await CurlTransport().send(
                HTTPRequest(
                    method: "GET", url: URL(string: world.sandbox.stripeURL.absoluteString + query)!,
                    headers: ["Authorization": "Bearer sk_test_processors"]))
            return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
        }
        func ids(_ page: (status: Int, json: [String: Any])) -> [String] {
            (page.json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        }
        let newest = try await list("/v1/payment_intents?limit=1")
        #expect(ids(newest).count == 1 && newest.json["has_more"] as? Bool == true)
        let rest = try await list("/v1/payment_intents?limit=10&starting_after=\(ids(newest)[0])")
        #expect(Set(ids(newest) + ids(rest)) == Set(intents) && rest.json["has_more"] as? Bool == false)
        // A cursor the time filter leaves out still marks the place: nothing created before the epoch's first second.
        #expect(try await list("/v1/payment_intents?created[lt]=1&starting_after=\(ids(newest)[0])").status == 200)
        let refunds = try await list("/v1/refunds?limit=1")
        let olderRefunds = try await list("/v1/refunds?limit=10&starting_after=\(ids(refunds)[0])")
        #expect(ids(refunds).count == 1 && ids(olderRefunds).count == 2)
        for (path, kind) in [("/v1/payment_intents", "payment_intent"), ("/v1/refunds", "refund")] {
            let refused = try await list("\(path)?starting_after=pi_nope")
            let error = refused.json["error"] as? [String: Any]
            #expect(refused.status == 404 && error?["code"] as? String == "resource_missing", "\(path): \(refused.json)")
            #expect(error?["param"] as? String == "starting_after" && error?["message"] as? String == "No such \(kind): 'pi_nope'")
        }
        await world.stop()
    }

    /// A PaymentIntent Stripe leaves `processing` is not an authorisation: `authorize` says
    /// pending, and `payment(_:)` reads it undecided, then authorised or refused once Stripe decides
    /// (the list says the same); a processing one cannot be cancelled.
    @Test func aPaymentStripeLeavesProcessingIsPendingUntilItDecides() async throws {
        let began = Date()
        let world = try await World()
        let stripe = world.stripe
        var undecided: [String] = []
        for (amount, capture) in [("5.56", true), ("6.56", false), ("7.56", true)] {
            let decision = try await stripe.authorize(try await world.authorization(amount, capture: capture))
            guard case .pending(let reference) = decision else { throw PaymentError(.invalidRequest, "\(decision) is not pending") }
            #expect(decision.status == .success, "the sheet completes: the payer's part is done")
            undecided.append(reference)
        }
        for reference in undecided {
            let found = try #require(try await stripe.payment(reference))
            #expect(found.state == .pending && found.status == "processing" && found.captured.minorUnits == 0, "\(found)")
        }
        #expect(try await stripe.payment("pi_nothing") == nil)
        guard case .refused(let refusal) = try await stripe.void(undecided[0], idempotencyKey: "v0") else {
            throw PaymentError(.invalidRequest, "a processing PaymentIntent was cancelled")
        }
        #expect(refusal.contains("processing"))
        let listed = try #require(try await stripe.payments(from: began.addingTimeInterval(-60), to: Date().addingTimeInterval(60)))
        #expect(listed.filter { $0.state == .pending }.count == 3)

        #expect(await world.sandbox.stripe.decide(undecided[0], succeeded: true) == nil)
        #expect(await world.sandbox.stripe.decide(undecided[1], succeeded: true) == nil)
        #expect(await world.sandbox.stripe.decide(undecided[2], succeeded: false) == nil)
        #expect(await world.sandbox.stripe.decide(undecided[2], succeeded: true) != nil, "decided once")
        let paid = try #require(try await stripe.payment(undecided[0]))
        #expect(paid.state == .captured && paid.captured == paid.authorized && paid.authorized.minorUnits == 556, "\(paid)")
        let held = try #require(try await stripe.payment(undecided[1]))
        #expect(held.state == .authorized && held.status == "requires_capture", "\(held)")
        let failed = try #require(try await stripe.payment(undecided[2]))
        #expect(failed.state == .refused && failed.status == "requires_payment_method", "\(failed)")
        // A plain amount is decided at once, as before.
        guard case .authorized = try await stripe.authorize(try await world.authorization("8.00")) else {
            throw PaymentError(.invalidRequest, "8.00 was not authorised at once")
        }
        await world.stop()
    }

    /// Adyen's report as a reader meets it: more columns than Cashier reads, quoted fields, every
    /// status a payment goes through; a report without the columns it needs is refused.
    @Test func adyensAccountingReportIsReadByColumnName() throws {
        let csv = #"""
            Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Booking Date,TimeZone,Main Currency,Main Amount,Record Type,Payment Currency,Received (PC),Authorised (PC),Captured (PC),Settlement Currency,Payable (SC)
            Co,"Shop, Ltd",PSP1,ord_1,applepay,2026-12-01 09:00:00,UTC,USD,46.00,Received,USD,46.00,,,,
            Co,"Shop, Ltd",PSP1,ord_1,applepay,2026-12-01 09:00:01,UTC,USD,46.00,Authorised,USD,,46.00,,,
            Co,"Shop, Ltd",PSP1,ord_1,applepay,2026-12-01 09:05:00,UTC,USD,46.00,SentForSettle,USD,,,46.00,,
            Co,"Shop, Ltd",PSP1,ord_1,applepay,2026-12-01 10:00:00,UTC,USD,46.00,SentForRefund,USD,,,-6.00,,
            Co,"Shop, Ltd",PSP2,"ord_""2""",applepay,2026-12-01 11:00:00,UTC,USD,20.00,Authorised,USD,,20.00,,,
            Co,"Shop, Ltd",PSP2,"ord_""2""",applepay,2026-12-01 11:10:00,UTC,USD,20.00,Cancelled,USD,,,,,
            Co,"Shop, Ltd",PSP3,ord_3,applepay,2026-12-01 12:00:00,UTC,USD,9.00,Refused,USD,,,,,
            Co,"Shop, Ltd",PSP4,ord_4,applepay,2026-12-01 13:00:00,UTC,USD,15.00,Authorised,USD,,15.00,,,
            Co,"Shop, Ltd",PSP4,ord_4,applepay,2026-12-01 13:05:00,UTC,USD,15.00,SentForSettle,USD,,,15.00,,
            Co,"Shop, Ltd",PSP4,ord_4,applepay,2026-12-02 08:00:00,UTC,USD,15.00,CaptureFailed,USD,,,15.00,,
            Co,"Shop, Ltd",PSP5,ord_5,applepay,2026-12-01 14:00:00,UTC,USD,7.00,Authorised,USD,,7.00,,,
            Co,"Shop, Ltd",PSP5,ord_5,applepay,2026-12-01 14:05:00,UTC,USD,7.00,SentForSettle,USD,,,7.00,,
            Co,"Shop, Ltd",PSP5,ord_5,applepay,2026-12-02 08:00:00,UTC,USD,7.00,CaptureFailed,USD,,,7.00,,
            Co,"Shop, Ltd",PSP5,ord_5,applepay,2026-12-03 08:00:00,UTC,USD,7.00,SentForSettle,USD,,,7.00,,
            Co,"Shop, Ltd",PSP6,ord_6,applepay,2026-12-01 15:00:00,UTC,USD,30.00,Authorised,USD,,30.00,,,
            Co,"Shop, Ltd",PSP6,ord_6,applepay,2026-12-01 15:00:00,UTC,USD,30.00,SentForSettle,USD,,,30.00,,
            Co,"Shop, Ltd",PSP6,ord_6,applepay,2026-12-10 09:00:00,UTC,USD,30.00,Chargeback,USD,,,-30.00,,
            Co,"Shop, Ltd",PSP6,ord_6,applepay,2026-12-20 09:00:00,UTC,USD,30.00,ChargebackReversed,USD,,,30.00,,
            Co,"Shop, Ltd",PSP6,ord_6,applepay,2026-12-21 09:00:00,UTC,USD,30.00,SecondChargeback,USD,,,-12.00,,
            """#
        let payments = try ApplePay.AccountingReport.payments(try ApplePay.AccountingReport.rows(Data(csv.utf8)))
        #expect(payments.map(\.reference) == ["PSP1", "PSP2", "PSP3", "PSP4", "PSP5", "PSP6"])
        // Chargebacks go back like refunds; a reversal gives back.
        #expect(payments[5].refunded.minorUnits == 1200 && payments[5].state == .captured)
        // A capture the card scheme rejected took nothing (all of it went back, as from a void) until it is recaptured.
        #expect(payments[3].state == .voided && payments[3].status == "capture_failed" && payments[3].captured.minorUnits == 0)
        #expect(payments[4].state == .captured && payments[4].captured.minorUnits == 700)
        #expect(
            payments[0].authorized.minorUnits == 4600 && payments[0].captured.minorUnits == 4600 && payments[0].refunded.minorUnits == 600)
        #expect(payments[0].status == "captured" && payments[0].createdAt == ISO8601DateFormatter().date(from: "2026-12-01T09:00:00Z"))
        #expect(payments[1].merchantReference == #"ord_"2""# && payments[1].status == "voided")
        #expect(payments[2].status == "requires_payment_method")
        let broken = #expect(throws: PaymentError.self) { try ApplePay.AccountingReport.rows(Data("Psp Reference,Amount\nX,1\n".utf8)) }
        #expect(broken?.message.contains("Record Type") == true)
    }

    final class Recorder: HTTPTransport {
        let requests = Mutex<[HTTPRequest]>([])
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            requests.withLock { $0.append(request) }
            return try await URLSessionTransport().send(request)
        }
    }

    static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}

extension ApplePay.ProcessorDecision {
    var message: String {
        if case .declined(_, let message) = self { return message }
        return ""
    }
}

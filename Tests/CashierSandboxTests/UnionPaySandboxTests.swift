import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import UnionPay

/// The UnionPay library's client against the sandbox's UnionPay over real sockets: the whole
/// consume → tn → pay → back notification → query → refund → reconciliation cycle, and what the
/// sandbox refuses.
@Suite struct UnionPaySandboxTests {
    /// The merchant's `backUrl`: keeps every notification body, answers 200.
    final class Inbox: Sendable {
        final class Sink: Sendable { let bodies = Mutex<[[UInt8]]>([]) }
        private let sink = Sink()
        let server: HTTPServer

        init() throws {
            let sink = self.sink
            server = HTTPServer(configuration: .init()) { request in
                sink.bodies.withLock { $0.append(request.body) }
                return .text(UnionPay.Notification.acknowledgement)
            }
            try server.start()
        }

        var url: URL { URL(string: "http://127.0.0.1:\(server.port)/notify/unionpay")! }

        /// The `count`th body, once it arrived.
        func body(_ count: Int) async -> [UInt8]? {
            var found: [UInt8]?
            _ = await eventually {
                found = sink.bodies.withLock { $0.count >= count ? $0[count - 1] : nil }
                return found != nil
            }
            return found
        }

        var count: Int { sink.bodies.withLock { $0.count } }
    }

    struct World {
        let sandbox: SandboxServer
        let inbox: Inbox
        let client: UnionPay.Client
        let verifier: UnionPay.Verifier

        init(version: UnionPay.Version = .v5_1_0) async throws {
            sandbox = SandboxServer(wechatMerchants: [], timeScale: 0.001)
            try sandbox.start()
            inbox = try Inbox()
            let ca = sandbox.unionpay.ca
            verifier = try UnionPay.Verifier(
                root: ca.root, middle: ca.middle, legacyCertificates: version == .v5_0_0 ? [ca.gatewayCertificate] : [])
            client = UnionPay.Client(
                merchantID: ca.merchantID,
                signingKey: try UnionPay.SigningKey(privateKey: ca.merchantKey, certificate: ca.merchantCertificate),
                verifier: verifier, endpoints: sandbox.unionpayEndpoints, transport: URLSessionTransport(), version: version)
        }

        func consume(_ orderID: String, _ fen: Int64 = 1200) throws -> UnionPay.ConsumeRequest {
            try UnionPay.ConsumeRequest(
                orderID: orderID, amount: Money(minorUnits: fen, currency: .cny), backURL: inbox.url, time: Date(), reserved: "order=7")
        }

        func reversal(_ kind: UnionPay.ReversalRequest.Kind, _ orderID: String, of queryID: String, _ fen: Int64) throws
            -> UnionPay.ReversalRequest
        {
            try UnionPay.ReversalRequest(
                kind: kind, orderID: orderID, originalQueryID: queryID, amount: Money(minorUnits: fen, currency: .cny), backURL: inbox.url,
                time: Date())
        }

        func notification(_ count: Int) async throws -> UnionPay.Notification {
            let body = try #require(await inbox.body(count), "notification \(count) did not arrive")
            return try UnionPay.Notification.verify(body, verifier: verifier, merchantID: sandbox.unionpay.ca.merchantID)
        }

        func stop() async {
            await sandbox.stop()
            await inbox.server.stop()
        }
    }

    static func orderID(_ suffix: String) -> String { "U\(Int(Date().timeIntervalSince1970))\(UInt32.random(in: 0...UInt32.max))\(suffix)" }

    func rejection(_ body: () async throws -> Void) async -> PaymentError? {
        do {
            try await body()
            return nil
        } catch let error as PaymentError {
            return error
        } catch {
            return nil
        }
    }

    @Test(.timeLimit(.minutes(2))) func consumePayNotifyQueryRefundReconcile() async throws {
        let world = try await World()
        let request = try world.consume(Self.orderID("P"))
        let answer = try await world.client.consume(request)
        #expect(answer.tn.count == 21 && answer.fields["signPubKeyCert"]?.contains("\r\n") == true)
        // Not paid yet: UnionPay has no such transaction.
        #expect(try await world.client.query(orderID: request.orderID, transactionTime: request.transactionTime).state == .notFound)

        let paid = try #require(await world.sandbox.unionpay.pay(tn: answer.tn, outcome: .success))
        #expect(paid["pay_result"] == "success" && paid["state"] == "succeeded")
        let notification = try await world.notification(1)
        #expect(notification.kind == .consume && notification.isSuccess && notification.reserved == "order=7")
        try notification.check(orderID: request.orderID, amount: request.amount)
        let status = try await world.client.query(orderID: request.orderID, transactionTime: request.transactionTime)
        #expect(status.state == .succeeded && status.queryID == notification.queryID && status.amount == request.amount)
        // A tn is paid once.
        #expect(await world.sandbox.unionpay.pay(tn: answer.tn, outcome: .success)?["pay_result"] == "fail")

        // A refund: accepted, in process for a moment, then succeeded and notified.
        let refund = try world.reversal(.refund, Self.orderID("R1"), of: notification.queryID, 500)
        let accepted = try await world.client.reverse(refund)
        #expect(accepted.state == .accepted && accepted.queryID != nil)
        let first = try await world.client.query(orderID: refund.orderID, transactionTime: refund.transactionTime)
        #expect(first.state == .inProcess || first.state == .succeeded)
        #expect(
            try await eventually {
                try await world.client.query(orderID: refund.orderID, transactionTime: refund.transactionTime).state == .succeeded
            })
        let refunded = try await world.notification(2)
        #expect(refunded.kind == .refund && refunded.originalQueryID == notification.queryID && refunded.amount.minorUnits == 500)
        // More than what is left, an undo after a refund, an unknown original: refused with UnionPay's codes.
        let over = await rejection {
            _ = try await world.client.reverse(try world.reversal(.refund, Self.orderID("R2"), of: notification.queryID, 701))
        }
        #expect(over?.code == .providerRejected && over?.providerCode == "36")
        let undo = await rejection {
            _ = try await world.client.reverse(try world.reversal(.undo, Self.orderID("U1"), of: notification.queryID, 1200))
        }
        #expect(undo?.providerCode == "35")
        let unknown = await rejection { _ = try await world.client.reverse(try world.reversal(.refund, Self.orderID("R3"), of: "999", 1)) }
        #expect(unknown?.providerCode == "35")
        // The same orderId and txnTime again: 重复交易.
        #expect(await rejection { _ = try await world.client.consume(request) }?.providerCode == "12")

        // The day's reconciliation file, from the file host: the consume and the refund.
        let settleDate = try #require(notification.settleDate)
        let file = try #require(try await world.client.reconciliationFile(settleDate: settleDate, time: Date()))
        let consumeLine = try #require(file.lines.first { $0.orderID == request.orderID })
        #expect(consumeLine.amount == request.amount && consumeLine.queryID == notification.queryID && consumeLine.transactionType == "01")
        #expect(consumeLine.fee.isNegative && consumeLine.reserved == "order=7")
        let refundLine = try #require(file.lines.first { $0.orderID == refund.orderID })
        #expect(
            refundLine.transactionType == "04" && refundLine.originalQueryID == notification.queryID && refundLine.settleAmount.isNegative)
        #expect(file.fileName.hasSuffix(".zip") && file.summary?.contains("汇总") == true)
        // A day with nothing settled: no file (98).
        let otherDay = notification.settleDate == "0101" ? "0102" : "0101"
        #expect(try await world.client.reconciliationFile(settleDate: otherDay, time: Date()) == nil)

        // The sandbox's books agree.
        let ledger = await world.sandbox.unionpay.ledger().first { $0.out_trade_no == request.orderID }
        #expect(ledger?.paid == true && ledger?.refunded_minor == 500 && ledger?.transaction_id == notification.queryID)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(2))) func undoTheSameDayAndFailedAndCancelledPayments() async throws {
        let world = try await World()
        let request = try world.consume(Self.orderID("P"), 800)
        let tn = try await world.client.consume(request).tn
        #expect(await world.sandbox.unionpay.pay(tn: tn, outcome: .cancel)?["state"] == "awaiting_payment")
        await world.sandbox.unionpay.pay(tn: tn, outcome: .success)
        let paid = try await world.notification(1)
        // An undo must be for the whole amount.
        #expect(
            await rejection { _ = try await world.client.reverse(try world.reversal(.undo, Self.orderID("U0"), of: paid.queryID, 700)) }?
                .providerCode == "36")
        let undo = try world.reversal(.undo, Self.orderID("U1"), of: paid.queryID, 800)
        #expect(try await world.client.reverse(undo).state == .accepted)
        let undone = try await world.notification(2)
        #expect(undone.kind == .undo && undone.originalQueryID == paid.queryID)
        #expect(
            await rejection { _ = try await world.client.reverse(try world.reversal(.refund, Self.orderID("R1"), of: paid.queryID, 1)) }?
                .providerCode == "35")
        #expect(await world.sandbox.unionpay.ledger().first { $0.out_trade_no == request.orderID }?.paid == false)

        // A declined card: the consume failed, nothing is notified.
        let declined = try world.consume(Self.orderID("D"), 300)
        let declinedTN = try await world.client.consume(declined).tn
        #expect(await world.sandbox.unionpay.pay(tn: declinedTN, outcome: .fail)?["state"] == "failed")
        let status = try await world.client.query(orderID: declined.orderID, transactionTime: declined.transactionTime)
        #expect(status.state == .failed(UnionPay.ResponseCode(rawValue: "51"), "余额不足[1000051]"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(world.inbox.count == 2)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(2))) func refundOutcomesAndFaults() async throws {
        let world = try await World()
        let request = try world.consume(Self.orderID("P"))
        await world.sandbox.unionpay.pay(tn: try await world.client.consume(request).tn, outcome: .success)
        let paid = try await world.notification(1)
        await world.sandbox.unionpay.setRefundOutcome(.refuse)
        #expect(
            await rejection { _ = try await world.client.reverse(try world.reversal(.refund, Self.orderID("R1"), of: paid.queryID, 100)) }?
                .providerCode == "01")
        await world.sandbox.unionpay.setRefundOutcome(.failLater(status: "CLOSED"))
        let failing = try world.reversal(.refund, Self.orderID("R2"), of: paid.queryID, 100)
        #expect(try await world.client.reverse(failing).state == .accepted)
        #expect(
            try await eventually {
                if case .failed = try await world.client.query(orderID: failing.orderID, transactionTime: failing.transactionTime).state {
                    return true
                }
                return false
            })
        await world.sandbox.unionpay.setRefundOutcome(.succeed)

        // Faults hit the gateway and the file host: a forged signature, garbage, a 500.
        world.sandbox.setFault(.badSignature)
        #expect(
            await rejection { _ = try await world.client.query(orderID: request.orderID, transactionTime: request.transactionTime) }?.code
                == .signatureMismatch)
        #expect(
            await rejection { _ = try await world.client.reconciliationFile(settleDate: paid.settleDate ?? "0101", time: Date()) }?.code
                == .signatureMismatch)
        world.sandbox.setFault(.garbage)
        #expect(await rejection { _ = try await world.client.consume(try world.consume(Self.orderID("G"))) }?.code == .malformedMessage)
        world.sandbox.setFault(.serverError)
        #expect(await rejection { _ = try await world.client.consume(try world.consume(Self.orderID("S"))) }?.code == .transport)
        world.sandbox.setFault(.none)
        #expect(try await world.client.query(orderID: request.orderID, transactionTime: request.transactionTime).state == .succeeded)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(2))) func aStrangersSignatureAndVersion500() async throws {
        let world = try await World()
        // A merchant key the sandbox does not know: 11, mirrored.
        let ca = world.sandbox.unionpay.ca
        let stranger = UnionPay.Client(
            merchantID: ca.merchantID,
            signingKey: try UnionPay.SigningKey(
                privateKey: TestKeys.rsa(5),
                certificate: try ca.issueMerchantCertificate(merchantID: ca.merchantID, key: TestKeys.rsa(5).publicKey, serial: 77)),
            verifier: world.verifier, endpoints: world.sandbox.unionpayEndpoints)
        let refused = await rejection { _ = try await stranger.consume(try world.consume(Self.orderID("X"))) }
        #expect(refused?.providerCode == "11" && refused?.providerMessage?.contains("9100004") == true)
        // Once registered, its requests are taken.
        await world.sandbox.unionpay.register(
            merchantID: ca.merchantID,
            certificate: try ca.issueMerchantCertificate(
                merchantID: ca.merchantID, key: TestKeys.rsa(5).publicKey, serial: 77))
        #expect(try await stranger.consume(try world.consume(Self.orderID("Y"))).tn.count == 21)
        await world.stop()

        // 5.0.0: SHA-1, and the answer's certificate found by certId among those configured.
        let old = try await World(version: .v5_0_0)
        let request = try old.consume(Self.orderID("V"))
        let answer = try await old.client.consume(request)
        #expect(answer.fields["version"] == "5.0.0" && answer.fields["signPubKeyCert"] == nil)
        await old.sandbox.unionpay.pay(tn: answer.tn, outcome: .success)
        #expect(try await old.notification(1).fields["version"] == "5.0.0")
        await old.stop()
    }

    @Test(.timeLimit(.minutes(2))) func thePayerPageAndThePayerAPI() async throws {
        let world = try await World()
        let request = try world.consume(Self.orderID("W"), 1999)
        let tn = try await world.client.consume(request).tn
        let transport = URLSessionTransport()
        let page = try await transport.send(
            HTTPRequest(
                method: "GET",
                url: world.sandbox.unionpayGatewayURL.appendingPathComponent("pay").appending(queryItems: [.init(name: "tn", value: tn)])))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && html.contains("¥19.99") && html.contains(request.orderID))
        let posted = try await transport.send(
            HTTPRequest(
                method: "POST", url: world.sandbox.unionpayGatewayURL.appendingPathComponent("pay"),
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("tn=\(tn)&outcome=success".utf8)))
        #expect(String(decoding: posted.body, as: UTF8.self).contains("支付成功"))
        _ = try await world.notification(1)

        func payerAPI(_ body: String) async throws -> (Int, [String: Any]) {
            let response = try await transport.send(
                HTTPRequest(method: "POST", url: world.sandbox.baseURL.appendingPathComponent("sandbox/pay"), body: Data(body.utf8)))
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
        }
        let other = try await world.client.consume(try world.consume(Self.orderID("A")))
        let (status, answer) = try await payerAPI(#"{"provider":"unionpay","tn":"\#(other.tn)","outcome":"success"}"#)
        #expect(status == 200 && answer["pay_result"] as? String == "success" && answer["state"] as? String == "succeeded")
        #expect(try await payerAPI(#"{"provider":"unionpay","tn":"123","outcome":"success"}"#).0 == 404)
        #expect(try await payerAPI(#"{"provider":"unionpay","outcome":"success"}"#).0 == 400)
        #expect(try await payerAPI(#"{"provider":"unionpay","tn":"\#(other.tn)","outcome":"maybe"}"#).0 == 400)
        // The other providers' payer API is untouched.
        #expect(try await payerAPI(#"{"provider":"wechat","out_trade_no":"nope","outcome":"success"}"#).0 == 404)
        await world.stop()
    }

    @Test func theReadyFileEntriesLetAClientSignAndVerify() async throws {
        let sandbox = SandboxServer(wechatMerchants: [])
        try sandbox.start()
        let entries = sandbox.unionpayReadyFileEntries
        #expect(
            Set(entries.keys) == [
                "unionpay_gateway_url", "unionpay_file_url", "unionpay_mer_id", "unionpay_sign_key", "unionpay_sign_cert",
                "unionpay_root_cert",
                "unionpay_middle_cert",
            ])
        let key = try UnionPay.SigningKey(
            privateKeyPEM: try #require(entries["unionpay_sign_key"]), certificatePEM: try #require(entries["unionpay_sign_cert"]))
        let verifier = try UnionPay.Verifier(
            rootPEM: try #require(entries["unionpay_root_cert"]), middlePEM: try #require(entries["unionpay_middle_cert"]))
        let client = UnionPay.Client(
            merchantID: try #require(entries["unionpay_mer_id"]), signingKey: key, verifier: verifier,
            endpoints: UnionPay.Endpoints(
                gateway: try #require(entries["unionpay_gateway_url"].flatMap(URL.init(string:))),
                fileDownload: try #require(entries["unionpay_file_url"].flatMap(URL.init(string:)))))
        #expect(entries["unionpay_file_url"] != sandbox.baseURL.absoluteString)
        #expect(try await client.query(orderID: "C20261206000001", transactionTime: "20261206000001").state == .notFound)
        await sandbox.stop()
    }
}

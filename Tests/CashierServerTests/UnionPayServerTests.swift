import ApplePay
import Cashier
import CashierCurl
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing
import UnionPay

@testable import CashierSandbox

/// UnionPay through the merchant server, against the sandbox's gateway: the seed's Apple Pay
/// request (CN, CNY, China UnionPay) paid with `unionpay.applepay`, refunded and reconciled; the
/// notifications that must not count (forged, tampered, replayed, another certificate, another
/// amount or merchant) changing nothing; notify, query and refunds raced on SQLite and on three
/// instances sharing PostgreSQL, with the books checked against the sandbox's.
@Suite(.serialized, .timeLimit(.minutes(3))) struct UnionPayServerTests {
    typealias Backend = MoneyWorld.Backend

    /// The Apple Pay request the project's seed builds: China, yuan, China UnionPay cards.
    static func seedRequest() throws -> ApplePay.PaymentRequest {
        try ApplePay.PaymentRequest(
            merchantIdentifier: "merchant.com.example.sandbox", countryCode: try CountryCode(alpha2: "CN"),
            items: [try LineItem(label: "Latte", unitAmount: Money(decimal: "51.00", currency: .cny))], totalLabel: "Cashier Sandbox",
            supportedNetworks: [.chinaUnionPay], merchantCapabilities: [.supports3DS, .supportsEMV])
    }

    /// PassKit's names for the request's networks (`PKPaymentNetwork.rawValue`), as
    /// `canMakePayments(usingNetworks:)` would report them on a device that holds such cards.
    static func passKitNames(_ networks: [ApplePay.PaymentRequest.Network]) -> [String] {
        networks.map { $0 == .chinaUnionPay ? "ChinaUnionPay" : $0.rawValue.prefix(1).uppercased() + $0.rawValue.dropFirst() }
    }

    /// A back notification signed as the sandbox's UnionPay signs (its gateway certificate), or
    /// by `ca`'s gateway certificate (another CA's: the server must not trust it).
    static func notification(
        _ world: MoneyWorld, orderID: String, fen: Int64, queryID: String, merchantID: String? = nil, kind: String = "01",
        extra: [String: String] = [:], by ca: UnionPayTestCA? = nil
    ) async throws -> Data {
        let now = BeijingTime.string(from: Date(), .compact)
        var fields = [
            "accessType": "0", "bizType": "000201", "currencyCode": "156", "encoding": "UTF-8",
            "merId": merchantID ?? world.sandbox.unionpay.ca.merchantID, "orderId": orderID, "txnTime": now, "txnType": kind,
            "txnSubType": kind == "01" ? "01" : "00", "txnAmt": String(fen), "queryId": queryID, "respCode": "00", "respMsg": "成功[0000000]",
            "settleAmt": String(fen), "settleCurrencyCode": "156", "settleDate": String(now.dropFirst(4).prefix(4)), "traceNo": "123456",
            "traceTime": String(now.dropFirst(4)),
        ].merging(extra) { $1 }
        if let ca {
            fields["version"] = "5.1.0"
            fields["signMethod"] = "01"
            fields["certId"] = ca.gatewayCertificate.serialNumberDecimal
            fields["signPubKeyCert"] = UnionPayTestCA.crlfPEM(ca.gatewayCertificate)
            fields["signature"] = try UnionPay.Signer.signature(for: fields, privateKey: ca.gatewayKey, version: .v5_1_0)
        } else {
            fields = await world.sandbox.unionpay.signed(fields, version: .v5_1_0)
        }
        return Data(UnionPay.FormBody.encode(fields).utf8)
    }

    static func post(_ body: Data, to base: String, via transport: any HTTPTransport = ServerFixture.transport) async throws -> (
        status: Int, text: String
    ) {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
        let reply = try await transport.send(
            HTTPRequest(method: "POST", url: URL(string: base + "/notify/unionpay")!, headers: headers, body: body, timeout: .seconds(60)))
        return (reply.status, String(decoding: reply.body, as: UTF8.self))
    }

    /// Pays a `tn` in the sandbox as the plugin's payer would. - Returns: the consume's queryId.
    static func pay(_ world: MoneyWorld, tn: String, outcome: String = "success") async throws -> String? {
        let answer = try await world.sandboxCall("POST", "sandbox/pay", json: ["provider": "unionpay", "tn": tn, "outcome": outcome])
        try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let orderID = try #require(answer.object["order_id"] as? String)
        return await world.sandbox.unionpay.consume(orderID: orderID)?.queryID
    }

    @Test func theSeedsApplePayRequestIsPaidRefundedAndReconciled() async throws {
        let world = try await MoneyWorld(.sqlite)
        let request = try Self.seedRequest()
        let summary = try request.summary()
        #expect(request.countryCode.alpha2 == "CN" && summary.currency == .cny)
        let created = try await world.call(
            "POST", "/v1/orders",
            json: [
                "items": request.items.map { ["label": $0.label, "amount": $0.amount.decimalString] }, "currency": summary.currency.code,
                "description": "Latte",
            ])
        try #require(created.status == 201, "\(created.errorMessage)")
        let id = try #require(created.object["id"] as? String)
        // The device reports what Apple Pay can pay with; one with no China UnionPay card is told to use 云闪付.
        let refused = try await world.call(
            "POST", "/v1/orders/\(id)/payments",
            json: ["method": "unionpay.applepay", "payer_wallets": ["apple_pay_networks": ["Visa"]]])
        #expect(refused.status == 422 && refused.errorMessage.contains("unionpay.app"), "\(refused.status) \(refused.errorMessage)")
        let started = try await world.start(
            id, "unionpay.applepay", extra: ["payer_wallets": ["apple_pay_networks": Self.passKitNames(request.supportedNetworks)]])
        let parameters = try #require(started["unionpay"] as? [String: Any], "\(started)")
        let tn = try #require(parameters["tn"] as? String)
        #expect(parameters["mode"] as? String == "01" && tn.count == 21 && tn.allSatisfy(\.isNumber))
        let number = try #require(started["out_trade_no"] as? String)
        let sent = try #require(await world.sandbox.unionpay.ledger().first { $0.out_trade_no == number })
        #expect(sent.amount_minor == 5100 && sent.currency == "CNY")
        // The wallet's word alone moves nothing: still pending until UnionPay says.
        #expect(try await world.status(id) == "pending")
        let queryID = try #require(try await Self.pay(world, tn: tn))
        #expect(try await world.waitFor(id, .paid))
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.outTradeNo == number })
        #expect(payment.provider == .unionpay && payment.method == .unionpayApplePay && payment.transactionID == queryID)
        #expect(payment.merchantID == world.sandbox.unionpay.ca.merchantID)
        // Refunded in two parts: each reserved, sent as a refund (04), confirmed by UnionPay's notification.
        for amount in ["20.00", "31.00"] {
            let refund = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": amount])
            #expect(refund.status == 200, "\(refund.errorMessage)")
        }
        let over = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "0.01"])
        #expect(over.status == 409)
        #expect(
            try await eventually {
                let refunds = try await world.store.refunds(orderID: id)
                return refunds.count == 2 && refunds.allSatisfy { $0.status == .succeeded && $0.confirmedAt != nil }
            })
        #expect(try await world.status(id) == "refunded")
        let books = try #require(try await world.ledger().first { $0.out_trade_no == number })
        #expect(books.paid && books.refunded_minor == 5100 && books.refunds.count == 2, "\(books)")
        // Reconciled against the day's file from UnionPay's file host.
        let report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        #expect((report["not_reconciled"] as? [String: Int])?["unionpay"] == nil, "\(report)")
        #expect((report["matched"] as? Int ?? 0) >= 2, "\(report)")
        try await world.expectBooksAgreeThenStop()
    }

    @Test func notificationsThatDoNotHoldChangeNothing() async throws {
        let world = try await MoneyWorld(.sqlite)
        let order = try await world.order("51.00")
        let started = try await world.start(order.id, "unionpay.app")
        let number = try #require(started["out_trade_no"] as? String)
        let tn = try #require((started["unionpay"] as? [String: Any])?["tn"] as? String)
        let stranger = try UnionPayTestCA()
        let fakeQueryID = "999999999999999999999"
        let genuine = try await Self.notification(world, orderID: number, fen: 5100, queryID: fakeQueryID)
        var tampered = String(decoding: genuine, as: UTF8.self)
        tampered = tampered.replacingOccurrences(of: "txnAmt=5100", with: "txnAmt=1")
        #expect(tampered != String(decoding: genuine, as: UTF8.self))
        let hostile: [(String, Data)] = [
            ("tampered", Data(tampered.utf8)),
            ("another certificate", try await Self.notification(world, orderID: number, fen: 5100, queryID: fakeQueryID, by: stranger)),
            ("another amount", try await Self.notification(world, orderID: number, fen: 1, queryID: fakeQueryID)),
            (
                "another merchant",
                try await Self.notification(world, orderID: number, fen: 5100, queryID: fakeQueryID, merchantID: "777290058199999")
            ),
            (
                "another currency",
                try await Self.notification(world, orderID: number, fen: 5100, queryID: fakeQueryID, extra: ["currencyCode": "840"])
            ),
            ("unsigned", Data(String(decoding: genuine, as: UTF8.self).replacingOccurrences(of: "signature=", with: "signaturX=").utf8)),
            ("garbage", Data("respCode=00&orderId=\(number)".utf8)),
        ]
        for (name, body) in hostile {
            let reply = try await Self.post(body, to: world.base(), via: world.transport)
            #expect(reply.status != 200 && reply.text != "ok", "\(name): \(reply.status) \(reply.text)")
        }
        #expect(try await world.store.order(id: order.id)?.status == .pending)
        #expect(try await world.store.payments(orderID: order.id).allSatisfy { $0.status == .pending && $0.transactionID == nil })
        // Paid for real; the genuine notification replayed to every instance, again and again: paid once.
        let queryID = try #require(try await Self.pay(world, tn: tn))
        #expect(try await world.waitFor(order.id, .paid))
        let replay = try await Self.notification(world, orderID: number, fen: 5100, queryID: queryID)
        for index in 0..<4 {
            let reply = try await Self.post(replay, to: world.base(index), via: world.transport)
            #expect(reply.status == 200 && reply.text == "ok", "\(reply.status) \(reply.text)")
        }
        let paid = try #require(try await world.store.payments(orderID: order.id).first { $0.status == .succeeded })
        #expect(paid.transactionID == queryID && paid.amount.minorUnits == 5100)
        let events = try await world.store.events(orderID: order.id)
        #expect(events.filter { $0.kind == .notificationRefused }.count >= 1, "the wrong amount is logged as refused")
        #expect(await eventually { world.webhooks("order.paid", order: order.id).count == 1 })
        try await world.expectBooksAgreeThenStop()
    }

    /// For each order: the payer pays, and at once the genuine notification is fired at every
    /// instance, the order is read (which queries UnionPay), the query job runs everywhere, and
    /// eight refunds of 20.00 are raced on 50.00 — two go through, at UnionPay and here alike.
    @Test(arguments: Backend.available)
    func notifyQueryAndRefundsRacedAddUp(backend: Backend) async throws {
        let world = try await MoneyWorld(backend) {
            $0.queryAfter = 0
            $0.readQueryInterval = 0
        }
        var orders: [(id: String, number: String, tn: String)] = []
        for method in ["unionpay.applepay", "unionpay.app", "unionpay.applepay"] {
            let order = try await world.order("50.00")
            let started = try await world.start(order.id, method)
            let tn = try #require((started["unionpay"] as? [String: Any])?["tn"] as? String)
            orders.append((order.id, try #require(started["out_trade_no"] as? String), tn))
        }
        for order in orders {
            let queryID = try #require(try await Self.pay(world, tn: order.tn))
            let copy = try await Self.notification(world, orderID: order.number, fen: 5000, queryID: queryID)
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<6 {
                    group.addTask { "notify \(try await Self.post(copy, to: world.base(index), via: world.transport).status)" }
                    group.addTask { "read \(try await world.call("GET", "/v1/orders/\(order.id)", via: index).status)" }
                }
                for server in world.servers { group.addTask { "query \(try await server.queryPendingPayments())" } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(answers.filter { $0.hasPrefix("notify") }.allSatisfy { $0 == "notify 200" }, "\(answers)")
            #expect(answers.filter { $0.hasPrefix("read") }.allSatisfy { $0 == "read 200" }, "\(answers)")
            #expect(try await world.waitFor(order.id, .paid))
            let refunds = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
                for index in 0..<8 {
                    group.addTask { try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "20.00"], via: index) }
                }
                for server in world.servers {
                    group.addTask {
                        _ = try await server.settleRefunds()
                        return .init(status: 0, body: Data())
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(refunds.filter { $0.status == 200 }.count == 2, "\(refunds.map(\.status))")
            #expect(refunds.filter { $0.status == 409 }.count == 6, "\(refunds.map { "\($0.status) \($0.errorMessage)" })")
            #expect(
                try await eventually {
                    try await world.store.refunds(orderID: order.id).allSatisfy { $0.status == .succeeded && $0.confirmedAt != nil }
                })
            #expect(await eventually { world.webhooks("order.paid", order: order.id).count == 1 })
            #expect(try await world.store.payments(orderID: order.id).filter { $0.status == .succeeded }.count == 1)
        }
        let books = try await world.ledger().filter { $0.provider == "unionpay" && $0.paid }
        #expect(books.count == 3 && books.allSatisfy { $0.refunded_minor == 4000 }, "\(books)")
        try await world.expectBooksAgreeThenStop()
    }
}

import Alipay
import Cashier
import CashierCurl
import CashierSandbox
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// Issue 58, item 10 (end to end): when the server asks a provider where a payment stands, the
/// answer counts only if it is about that payment's trade. Here a proxy between the server and the
/// providers (or a confused gateway) answers the question about trade A with the genuine, signed
/// answer about trade B — paid, for the same amount. A stays unpaid, through the query job and
/// through a read that asks.
@Suite struct QueryAnswerTests {
    /// Re-asks each order query about one trade as a query about another, signed anew with the
    /// merchant's own credentials, so the provider's answer is genuine — and about the wrong trade.
    final class MisdirectingTransport: HTTPTransport {
        let base = ServerFixture.transport  // the sandbox, in process
        /// Asked-about trade number → the one the provider is asked about instead.
        let instead = Mutex<[String: String]>([:])
        let configuration = Mutex<MerchantConfiguration?>(nil)
        /// Questions asked about another trade that the provider answered (200).
        let misdirected = Atomic<Int>(0)
        /// When set, a counter charge (micropay, alipay.trade.pay) of trade X is sent as a charge of
        /// ``elsewhere(_:)``'s trade instead, and questions about X follow it there.
        let chargeElsewhere = Atomic<Bool>(false)

        /// The trade a charge of `number` is turned into: the same number, its first letter changed.
        static func elsewhere(_ number: String) -> String { (number.first == "Z" ? "Y" : "Z") + number.dropFirst() }

        /// The trade to ask about or charge instead of `asked`, if any (a charge moved elsewhere is
        /// remembered, so that its queries follow it).
        func other(for asked: String, charging: Bool) -> String? {
            instead.withLock { table in
                if charging, chargeElsewhere.load(ordering: .relaxed) { table[asked] = Self.elsewhere(asked) }
                return table[asked]
            }
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let table = instead.withLock { $0 }
            guard !table.isEmpty || chargeElsewhere.load(ordering: .relaxed), let configuration = configuration.withLock({ $0 }) else {
                return try await base.send(request)
            }
            var request = request
            let original = request
            let path = request.url.path
            if path.hasSuffix("pay/orderquery") || path.hasSuffix("pay/micropay"), let merchant = configuration.wechat?.merchant {
                // v2: the XML body's out_trade_no, signed again with the merchant's key.
                let document = try WeChatPay.V2.XMLDocument(parsing: Array(request.body))
                if let asked = document["out_trade_no"], let other = other(for: asked, charging: path.hasSuffix("pay/micropay")) {
                    var fields = document.pairs.filter { $0.key != "sign" }.map { ($0.key, $0.key == "out_trade_no" ? other : $0.value) }
                    fields.append(
                        ("sign", merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: merchant.signType)))
                    request = HTTPRequest(
                        method: request.method, url: request.url, headers: request.headers,
                        body: Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8), timeout: request.timeout)
                }
            } else if let range = path.range(of: "/out-trade-no/"), let merchant = configuration.wechatV3?.merchant {
                // v3: the path's trade number, the request signed again.
                let asked = String(path[range.upperBound...])
                if let other = table[asked] {
                    let query = request.url.query.map { "?" + $0 } ?? ""
                    // Signed as the client signs it: from /v3/, whatever the gateway's base path.
                    let v3Path = String(path[(path.range(of: "/v3/")?.lowerBound ?? path.startIndex)...])
                    let canonical = v3Path.replacingOccurrences(of: asked, with: other) + query
                    var headers = request.headers
                    headers.set(
                        "Authorization",
                        try WeChatPay.V3.RequestSigner.authorization(method: "GET", canonicalURL: canonical, body: "", merchant: merchant))
                    let url = URL(string: request.url.absoluteString.replacingOccurrences(of: asked, with: other))!
                    request = HTTPRequest(method: request.method, url: url, headers: headers, body: request.body, timeout: request.timeout)
                }
            } else if let alipay = configuration.alipay, var fields = try? Alipay.FormBody.parse(request.body),
                fields["method"] == "alipay.trade.query" || fields["method"] == "alipay.trade.pay", let biz = fields["biz_content"],
                let object = (try? JSONSerialization.jsonObject(with: Data(biz.utf8))) as? [String: Any],
                let asked = object["out_trade_no"] as? String,
                let other = other(for: asked, charging: fields["method"] == "alipay.trade.pay")
            {
                // Alipay: biz_content's out_trade_no, the parameters signed again with the app's key.
                var changed = object
                changed["out_trade_no"] = other
                fields["biz_content"] = String(
                    decoding: try JSONSerialization.data(withJSONObject: changed, options: [.sortedKeys]), as: UTF8.self)
                fields["sign"] = nil
                fields["sign"] = try Alipay.Signer(privateKey: alipay.privateKey).signature(for: fields, type: .rsa2)
                request = HTTPRequest(
                    method: request.method, url: request.url, headers: request.headers,
                    body: Data(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8),
                    timeout: request.timeout)
            }
            let answer = try await base.send(request)
            if request != original, answer.status == 200 { misdirected.add(1, ordering: .relaxed) }
            return answer
        }
    }

    enum Provider: String, CaseIterable, Sendable {
        case wechatV2 = "wechat.native v2"
        case wechatV3 = "wechat.native v3"
        case alipay = "alipay.qr"

        var method: String { self == .alipay ? "alipay.qr" : "wechat.native" }
        var api: String? { self == .wechatV2 ? "v2" : self == .wechatV3 ? "v3" : nil }

        func pay(_ sandbox: SandboxServer, _ number: String) async {
            switch self {
            case .wechatV2: await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
            case .wechatV3: await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
            case .alipay: await sandbox.alipay.pay(outTradeNo: number, outcome: .success)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Provider.allCases)
    func anAnswerAboutAnotherTradePaysNothing(provider: Provider) async throws {
        let transport = MisdirectingTransport()
        let fixture = try await ServerFixture(queryAfter: 0, providerTransport: transport)
        transport.configuration.withLock { $0 = fixture.server.configuration }
        func started() async throws -> (id: String, number: String) {
            let id = try await fixture.createOrderID(amount: "6.00")
            var body: [String: Any] = ["method": provider.method]
            if let api = provider.api { body["api"] = api }
            let answer = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: body)
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            return (id, try #require(answer.object["out_trade_no"] as? String))
        }
        let unpaid = try await started()
        let paid = try await started()
        await provider.pay(fixture.sandbox, paid.number)
        #expect(try await fixture.waitForStatus(paid.id, "paid"))
        transport.instead.withLock { $0[unpaid.number] = paid.number }
        // The query job asks about A and hears about B; a read of A asks too.
        _ = try await fixture.server.queryPendingPayments()
        let read = try await fixture.call("GET", "/v1/orders/\(unpaid.id)")
        #expect(transport.misdirected.load(ordering: .relaxed) > 0, "the provider was asked about B in A's place and answered")
        #expect(read.status == 200 && read.object["status"] as? String == "pending", "\(read.object)")
        #expect(try await fixture.store.order(id: unpaid.id)?.status == .pending)
        #expect(try await fixture.store.payments(orderID: unpaid.id).allSatisfy { $0.status == .pending && $0.transactionID == nil })
        // Asked straight, the provider says A is unpaid: nothing here was wrong but the answer.
        transport.instead.withLock { $0 = [:] }
        _ = try await fixture.server.queryPendingPayments()
        #expect(try await fixture.store.order(id: unpaid.id)?.status == .pending)
        await fixture.stop()
    }

    /// The same rule for a counter payment, whose charge answers at once: the proxy turns the
    /// charge of trade A into a charge of trade C. The provider takes C's money and answers about
    /// C, genuinely signed; that answer pays nothing here — A's order is not paid, by the charge's
    /// answer or by the questions that follow it (also about C). The library's own rule is in
    /// WeChatPayTests and AlipayTests (an answer naming another trade is malformed).
    @Test(.timeLimit(.minutes(2)), arguments: ["wechat.barcode", "alipay.barcode"])
    func aCounterChargeAnsweredAboutAnotherTradePaysNothing(method: String) async throws {
        let transport = MisdirectingTransport()
        let fixture = try await ServerFixture(
            configure: {
                $0.barcode.answerWithin = 2
                $0.barcode.giveUpAfter = 4
                $0.barcode.queryInterval = 0.1
            }, providerTransport: transport)
        transport.configuration.withLock { $0 = fixture.server.configuration }
        transport.chargeElsewhere.store(true, ordering: .relaxed)
        let id = try await fixture.createOrderID(amount: "18.80")
        let code = (method == "wechat.barcode" ? "13456789012345" : "28654321098765") + "0000"
        let answer = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": method, "auth_code": code])
        #expect(answer.status != 200 && answer.object["status"] as? String != "paid", "\(String(decoding: answer.body, as: UTF8.self))")
        let payment = try #require(try await fixture.store.payments(orderID: id).first)
        let elsewhere = MisdirectingTransport.elsewhere(payment.outTradeNo)
        // The provider did charge C, and answered: the proxy, not the provider, is what went wrong.
        let books = (await fixture.sandbox.wechatV2.ledger()) + (await fixture.sandbox.alipay.ledger())
        #expect(books.contains { $0.out_trade_no == elsewhere && $0.paid }, "the provider charged \(elsewhere)")
        #expect(transport.misdirected.load(ordering: .relaxed) > 0)
        // However long the till keeps asking, A is not paid by what was said about C.
        await fixture.server.settled()
        #expect(try await fixture.store.order(id: id)?.status != .paid)
        #expect(try await fixture.store.payments(orderID: id).allSatisfy { $0.status != .succeeded && $0.transactionID == nil })
        await fixture.stop()
    }
}

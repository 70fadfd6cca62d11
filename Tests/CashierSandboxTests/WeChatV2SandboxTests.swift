import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Our v2 client against the v2 sandbox, over real sockets on 127.0.0.1, with a merchant
/// notify endpoint that verifies what arrives.
@Suite struct WeChatV2SandboxTests {
    static let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")

    /// A merchant server that verifies notifications; it can refuse the first few to test retries.
    final class MerchantEndpoint: Sendable {
        let received = Mutex<[WeChatPay.V2.PaymentNotification]>([])
        let arrivals = Tally()
        let refusals = Atomic<Int>(0)
        let server: HTTPServer

        init(refuseFirst: Int = 0) throws {
            refusals.store(refuseFirst, ordering: .relaxed)
            let box = Box()
            server = HTTPServer(configuration: .init()) { request in
                guard let endpoint = box.endpoint else { return .text("", status: 503) }
                do {
                    let notification = try WeChatPay.V2.PaymentNotification.verify(request.body, merchant: WeChatV2SandboxTests.merchant)
                    if endpoint.refusals.load(ordering: .relaxed) > 0 {
                        endpoint.refusals.subtract(1, ordering: .relaxed)
                        return .text(WeChatPay.V2.NotificationReply.failure("busy").xmlString)
                    }
                    endpoint.received.withLock { $0.append(notification) }
                    endpoint.arrivals.add()
                    return .text(WeChatPay.V2.NotificationReply.success.xmlString)
                } catch {
                    return .text(WeChatPay.V2.NotificationReply.failure("\(error)").xmlString)
                }
            }
            box.endpoint = self
            try server.start()
        }

        final class Box: @unchecked Sendable {
            weak var endpoint: MerchantEndpoint?
        }

        var notifyURL: String { "http://127.0.0.1:\(server.port)/notify/wechat/v2" }

        func waitForNotification(_ outTradeNo: String) async throws -> WeChatPay.V2.PaymentNotification? {
            // Three attempts, each with a 5-second timeout, on a machine busy with the rest of the suite.
            await arrivals.first(within: .seconds(60)) { received.withLock { $0.first { $0.outTradeNo == outTradeNo } } }
        }
    }

    static func order(_ number: String, _ fen: Int64 = 5100, notifyURL: String) -> WeChatPay.V2.UnifiedOrder {
        WeChatPay.V2.UnifiedOrder(
            tradeType: .app, body: "2 lattes", outTradeNo: number, total: Money(minorUnits: fen, currency: .cny), notifyURL: notifyURL,
            clientIP: "127.0.0.1")
    }

    /// H5 (MWEB) orders name their site in `scene_info`, as WeChat Pay requires: the client will not
    /// place one without it, and the sandbox refuses one that lacks it or whose `h5_info` is not there.
    @Test func anH5OrderNamesItsSite() async throws {
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let client = WeChatPay.V2.Client(merchant: Self.merchant, baseURL: sandbox.wechatV2URL)
        var order = Self.order(TradeNumber.generate(), notifyURL: "http://127.0.0.1:9/unused")
        order.tradeType = .mweb
        let unnamed = await #expect(throws: PaymentError.self) { try await client.unifiedOrder(order) }
        #expect(unnamed?.code == .invalidRequest && unnamed?.message.contains("scene_info") == true)
        order.h5Site = .init(url: "https://m.example.com/shop?a=1&b=\"2\"", name: "示例 \"Shop\"")
        #expect(
            order.h5Site?.sceneInfo
                == #"{"h5_info":{"type":"Wap","wap_url":"https://m.example.com/shop?a=1&b=\"2\"","wap_name":"示例 \"Shop\""}}"#)
        let placed = try await client.unifiedOrder(order)
        #expect(placed.mwebURL?.contains(placed.prepayID) == true)
        let books = try #require(await sandbox.wechatV2.ledger().first { $0.out_trade_no == order.outTradeNo })
        #expect(books.sent["scene_info"] == order.h5Site?.sceneInfo)

        // What the sandbox says to a request without it, or with something else in it.
        func raw(_ scene: String?) async throws -> String {
            var fields: [(String, String)] = [
                ("appid", Self.merchant.appID), ("mch_id", Self.merchant.mchID), ("nonce_str", "n" + TradeNumber.generate()),
                ("body", "h5"), ("out_trade_no", TradeNumber.generate()), ("total_fee", "100"), ("spbill_create_ip", "203.0.113.9"),
                ("notify_url", "http://127.0.0.1:9/n"), ("trade_type", "MWEB"),
            ]
            if let scene { fields.append(("scene_info", scene)) }
            fields.append(("sign", Self.merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: .md5)))
            let response = try await CurlTransport().send(
                HTTPRequest(
                    method: "POST", url: sandbox.wechatV2URL.appendingPathComponent("pay/unifiedorder"),
                    body: Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)))
            let document = try WeChatPay.V2.XMLDocument(parsing: Array(response.body))
            return "\(document["err_code"] ?? "") \(document["err_code_des"] ?? "")"
        }
        #expect(try await raw(nil) == "PARAM_ERROR 缺少参数scene_info")
        #expect(try await raw("shop") == "PARAM_ERROR scene_info参数格式错误")
        #expect(try await raw(#"{"store_info":{"id":"1"}}"#) == "PARAM_ERROR scene_info参数格式错误")
        await sandbox.stop()
    }

    @Test func placePayNotifyQueryRefund() async throws {
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let endpoint = try MerchantEndpoint()
        let client = WeChatPay.V2.Client(merchant: Self.merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()

        let prepay = try await client.unifiedOrder(Self.order(number, notifyURL: endpoint.notifyURL))
        #expect(prepay.prepayID.hasPrefix("wx"))
        // Placing the same order again is idempotent; the same number with another amount is not.
        #expect(try await client.unifiedOrder(Self.order(number, notifyURL: endpoint.notifyURL)).prepayID == prepay.prepayID)
        let reused = await #expect(throws: PaymentError.self) {
            try await client.unifiedOrder(Self.order(number, 5101, notifyURL: endpoint.notifyURL))
        }
        #expect(reused?.providerCode == "OUT_TRADE_NO_USED")
        #expect(try await client.orderQuery(outTradeNo: number).tradeState == "NOTPAY")

        // The payer pays; the verified notification reaches the merchant.
        #expect(await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success) == "SUCCESS")
        let notification = try #require(try await endpoint.waitForNotification(number))
        try notification.check(amount: Money(minorUnits: 5100, currency: .cny))
        let status = try await client.orderQuery(outTradeNo: number)
        #expect(status.isPaid)
        #expect(status.amount == Money(minorUnits: 5100, currency: .cny))
        #expect(status.transactionID == notification.transactionID)
        let again = await #expect(throws: PaymentError.self) {
            try await client.unifiedOrder(Self.order(number, notifyURL: endpoint.notifyURL))
        }
        #expect(again?.providerCode == "ORDERPAID")
        let closePaid = await #expect(throws: PaymentError.self) { try await client.closeOrder(outTradeNo: number) }
        #expect(closePaid?.providerCode == "ORDERPAID")

        // Refunds: partial, idempotent by out_refund_no, never more than was paid.
        let total = Money(minorUnits: 5100, currency: .cny)
        let first = try await client.refund(
            outTradeNo: number, outRefundNo: "R1", total: total, refund: Money(minorUnits: 1000, currency: .cny))
        #expect(
            try await client.refund(outTradeNo: number, outRefundNo: "R1", total: total, refund: Money(minorUnits: 1000, currency: .cny))
                == first)
        let tooMuch = await #expect(throws: PaymentError.self) {
            try await client.refund(outTradeNo: number, outRefundNo: "R2", total: total, refund: Money(minorUnits: 4101, currency: .cny))
        }
        #expect(tooMuch?.providerCode == "INVALID_REQUEST")
        await sandbox.wechatV2.setRefundBalanceExhausted(true)
        let broke = await #expect(throws: PaymentError.self) {
            try await client.refund(outTradeNo: number, outRefundNo: "R3", total: total, refund: Money(minorUnits: 100, currency: .cny))
        }
        #expect(broke?.providerCode == "NOTENOUGH")
        await sandbox.wechatV2.setRefundBalanceExhausted(false)
        _ = try await client.refund(outTradeNo: number, outRefundNo: "R3", total: total, refund: Money(minorUnits: 4100, currency: .cny))
        let refunds = try await client.refundQuery(outRefundNo: "R1")
        #expect(refunds["refund_count"] == "2")
        #expect(try await client.orderQuery(outTradeNo: number).tradeState == "REFUND")
    }

    @Test func closeAndFailAndCancel() async throws {
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let client = WeChatPay.V2.Client(merchant: Self.merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        _ = try await client.unifiedOrder(Self.order(number, notifyURL: "http://127.0.0.1:9/unused"))
        #expect(await sandbox.wechatV2.pay(outTradeNo: number, outcome: .cancel) == "NOTPAY")
        #expect(await sandbox.wechatV2.pay(outTradeNo: number, outcome: .fail) == "PAYERROR")
        try await client.closeOrder(outTradeNo: number)
        #expect(try await client.orderQuery(outTradeNo: number).tradeState == "CLOSED")
        let closedAgain = await #expect(throws: PaymentError.self) { try await client.closeOrder(outTradeNo: number) }
        #expect(closedAgain?.providerCode == "ORDERCLOSED")
        let reopen = await #expect(throws: PaymentError.self) {
            try await client.unifiedOrder(Self.order(number, notifyURL: "http://127.0.0.1:9/unused"))
        }
        #expect(reopen?.providerCode == "ORDERCLOSED")
        let missing = await #expect(throws: PaymentError.self) { try await client.orderQuery(outTradeNo: "NOSUCHORDER") }
        #expect(missing?.providerCode == "ORDERNOTEXIST")
    }

    @Test func wrongKeyGetsSIGNERRORAndTamperedResponsesAreRefused() async throws {
        let merchant = Self.merchant
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let impostor = WeChatPay.V2.Merchant(
            appID: Self.merchant.appID, mchID: Self.merchant.mchID, apiKey: String(repeating: "0", count: 32))
        let wrongKey = await #expect(throws: PaymentError.self) {
            try await WeChatPay.V2.Client(merchant: impostor, baseURL: sandbox.wechatV2URL).orderQuery(outTradeNo: "X")
        }
        #expect(wrongKey?.code == .providerRejected)
        #expect(wrongKey?.providerMessage == "签名错误")
        // WeChat's own sandbox mode: the sandboxnew/ prefix and getsignkey.
        let sandboxMode = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL, sandboxPrefix: true)
        #expect(try await sandboxMode.sandboxSignKey() == merchant.apiKey)
        let raw = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.wechatV2URL.appendingPathComponent("pay/orderquery"),
                body: Data(
                    WeChatPay.V2.XMLDocument([("appid", merchant.appID), ("mch_id", merchant.mchID), ("sign", "BAD")]).xmlString.utf8)))
        let refusal = try WeChatPay.V2.XMLDocument(parsing: Array(raw.body))
        #expect(refusal["return_code"] == "FAIL")
        #expect(refusal["err_code"] == "SIGNERROR")

        // A man in the middle changes the prepay_id: the response signature no longer verifies.
        struct Tamper: HTTPTransport {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                var response = try await URLSessionTransport().send(request)
                let text = String(decoding: response.body, as: UTF8.self).replacingOccurrences(
                    of: "<prepay_id><![CDATA[wx", with: "<prepay_id><![CDATA[xx")
                response.body = Data(text.utf8)
                return response
            }
        }
        let tampered = await #expect(throws: PaymentError.self) {
            try await WeChatPay.V2.Client(merchant: Self.merchant, transport: Tamper(), baseURL: sandbox.wechatV2URL)
                .unifiedOrder(Self.order(TradeNumber.generate(), notifyURL: "http://127.0.0.1:9/unused"))
        }
        #expect(tampered?.code == .signatureMismatch)
    }

    @Test func hmacMerchantsAndRetriedNotifications() async throws {
        let hmac = WeChatPay.V2.Merchant(
            appID: "wx2421b1c4370ec43b", mchID: "10000101", apiKey: "192006250b4c09247ec02edce69f6a2d", signType: .hmacSHA256)
        // Notifications through libcurl, as the merchant server sends its calls (FoundationNetworking's
        // URLSession is the default; under a full test run's load it once held a delivery past the wait).
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant, hmac], timeScale: 0.001, transport: CurlTransport())
        try sandbox.start()
        let endpoint = try MerchantEndpoint(refuseFirst: 2)
        let client = WeChatPay.V2.Client(merchant: Self.merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        _ = try await client.unifiedOrder(Self.order(number, notifyURL: endpoint.notifyURL))
        await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
        #expect(try await endpoint.waitForNotification(number) != nil)
        // The merchant records before it replies; the sandbox logs the attempt once the reply is in
        // (and tries again when a loaded machine timed the attempt out: the merchant hears it again).
        var attempts: [NotificationDelivery.Attempt] = []
        while true {
            let heard = endpoint.arrivals.value
            await sandbox.delivery.settled()
            attempts = await sandbox.delivery.attempts(for: number)
            if attempts.last?.acknowledged == true { break }
            guard await endpoint.arrivals.wait(atLeast: heard + 1, within: .seconds(60)) else { break }
        }
        // Refused twice, then acknowledged once. Under a loaded full run a delivery can pass its 5 s
        // timeout while the endpoint is still answering: that attempt counts as not acknowledged
        // and is retried, as WeChat's would be.
        #expect(attempts.count >= 3)
        #expect(attempts.prefix(2).allSatisfy { !$0.acknowledged })
        #expect(attempts.last?.acknowledged == true && attempts.filter(\.acknowledged).count == 1)
        // An HMAC-SHA256 merchant's calls are signed and verified with HMAC.
        let hmacClient = WeChatPay.V2.Client(merchant: hmac, baseURL: sandbox.wechatV2URL)
        _ = try await hmacClient.unifiedOrder(Self.order(TradeNumber.generate(), notifyURL: "http://127.0.0.1:9/unused"))
    }

    @Test func payerAPI() async throws {
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let number = TradeNumber.generate()
        _ = try await WeChatPay.V2.Client(merchant: Self.merchant, baseURL: sandbox.wechatV2URL)
            .unifiedOrder(Self.order(number, notifyURL: "http://127.0.0.1:9/unused"))
        func pay(_ body: String) async throws -> (Int, String) {
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/pay"), body: Data(body.utf8)))
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        let ok = try await pay(#"{"provider":"wechat","out_trade_no":"\#(number)","outcome":"success"}"#)
        #expect(ok.0 == 200)
        #expect(ok.1.contains(#""trade_state":"SUCCESS""#))
        #expect(try await pay(#"{"provider":"wechat","out_trade_no":"NOPE","outcome":"success"}"#).0 == 404)
        #expect(try await pay(#"{"provider":"wechat","out_trade_no":"X","outcome":"maybe"}"#).0 == 400)
    }
}

/// The sandbox's faults, as clients see them.
@Suite struct SandboxFaultTests {
    @Test func clientsReportFaultsClearlyAndRecover() async throws {
        let merchant = WeChatV2SandboxTests.merchant
        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let client = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        let order = WeChatV2SandboxTests.order(number, notifyURL: "http://127.0.0.1:9/n")

        sandbox.setFault(.serverError)
        let down = await #expect(throws: PaymentError.self) { try await client.unifiedOrder(order) }
        #expect(down?.code == .transport)
        #expect(down?.message.contains("HTTP 500") == true)

        sandbox.setFault(.garbage)
        let garbage = await #expect(throws: PaymentError.self) { try await client.unifiedOrder(order) }
        #expect(garbage?.code == .malformedMessage)

        sandbox.setFault(.timeout(.seconds(3)))
        let slowClient = WeChatPay.V2.Client(merchant: merchant, transport: ShortTimeout(), baseURL: sandbox.wechatV2URL)
        let timedOut = await #expect(throws: PaymentError.self) { try await slowClient.orderQuery(outTradeNo: number) }
        #expect(timedOut?.code == .transport)

        sandbox.setFault(.latency(.milliseconds(50)))
        // Retrying with the same out_trade_no after the failures is safe: one order, one prepay id.
        let first = try await client.unifiedOrder(order)
        sandbox.setFault(.none)
        #expect(try await client.unifiedOrder(order).prepayID == first.prepayID)

        // The control API itself is never faulted, and can be driven over HTTP.
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/faults"), body: Data(#"{"mode":"server_error"}"#.utf8))
        )
        #expect(response.status == 200)
        await #expect(throws: PaymentError.self) { try await client.orderQuery(outTradeNo: number) }
        sandbox.setFault(.none)
        #expect(try await client.orderQuery(outTradeNo: number).tradeState == "NOTPAY")
        await sandbox.stop()
    }

    /// URLSession with a 0.5 s timeout.
    struct ShortTimeout: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            var request = request
            request.timeout = .milliseconds(500)
            return try await URLSessionTransport().send(request)
        }
    }
}

@Suite struct MutualTLSRoutingTests {
    /// Records the paths it carries, then passes them on.
    final class Recording: HTTPTransport, Sendable {
        let paths = Mutex<[String]>([])
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            paths.withLock { $0.append(request.url.path) }
            return try await URLSessionTransport().send(request)
        }
    }

    @Test func refundsTravelOverTheMutualTLSTransport() async throws {
        let merchant = WeChatV2SandboxTests.merchant
        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let plain = Recording()
        let mutual = Recording()
        let client = WeChatPay.V2.Client(merchant: merchant, transport: plain, mutualTLSTransport: mutual, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        _ = try await client.unifiedOrder(WeChatV2SandboxTests.order(number, notifyURL: "http://127.0.0.1:9/n"))
        await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
        _ = try await client.refund(
            outTradeNo: number, outRefundNo: "M\(number)", total: Money(minorUnits: 5100, currency: .cny),
            refund: Money(minorUnits: 1, currency: .cny))
        #expect(plain.paths.withLock { $0 } == ["/wechat/pay/unifiedorder"])
        #expect(mutual.paths.withLock { $0 } == ["/wechat/secapi/pay/refund"])
        await sandbox.stop()
    }
}

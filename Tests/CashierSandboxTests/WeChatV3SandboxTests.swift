import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Our v3 client against the v3 sandbox over real sockets: certificate download on an unknown
/// serial, prepay, query both ways, paid notifications verified and decrypted, refunds, close,
/// public-key mode, and a wrong merchant key refused.
@Suite struct WeChatV3SandboxTests {
    static let merchantKey = TestKeys.rsa(0)
    static let apiV3Key = "0123456789abcdefABCDEF0123456789"
    static let merchant = try! WeChatPay.V3.Merchant(
        mchID: "1230000109", certificateSerial: "5F1C72E2A8931B72A2E13AF8DEE92471EB397115", privateKey: merchantKey, apiV3Key: apiV3Key)

    /// The merchant as the sandbox knows it.
    static let sandboxMerchant = WeChatV3Sandbox.Merchant(
        mchID: merchant.mchID, certificateSerial: merchant.certificateSerial, publicKey: merchantKey.publicKey, apiV3Key: apiV3Key)

    static func sandbox() throws -> SandboxServer {
        let sandbox = SandboxServer(wechatMerchants: [], wechatV3Merchants: [sandboxMerchant], timeScale: 0.001)
        try sandbox.start()
        return sandbox
    }

    /// A merchant endpoint that opens v3 notifications with the client's platform keys.
    final class Endpoint: Sendable {
        let opened = Mutex<[WeChatPay.V3.Transaction]>([])
        let server: HTTPServer

        init(keys: WeChatPay.V3.PlatformKeys) throws {
            let sink = Sink()
            server = HTTPServer(configuration: .init()) { request in
                do {
                    let notification = try WeChatPay.V3.Notification.open(
                        body: request.body, headers: WeChatPay.V3.SignatureHeaders(headers: request.headers), keys: keys,
                        apiV3Key: WeChatV3SandboxTests.apiV3Key)
                    sink.transactions.withLock { $0.append(try! WeChatPay.V3.Transaction.decode(notification.plaintext)) }
                    sink.arrivals.add()
                    return HTTPServerResponse(status: 204)
                } catch {
                    return .error(status: 401, code: "FAIL", message: "\(error)")
                }
            }
            self.sink = sink
            try server.start()
        }

        final class Sink: Sendable {
            let transactions = Mutex<[WeChatPay.V3.Transaction]>([])
            let arrivals = Tally()
        }

        let sink: Sink
        var url: String { "http://127.0.0.1:\(server.port)/notify/wechat/v3" }

        func wait(for number: String) async throws -> WeChatPay.V3.Transaction? {
            await sink.arrivals.first(within: .seconds(30)) { sink.transactions.withLock { $0.first { $0.outTradeNo == number } } }
        }
    }

    @Test func fullPaymentCycleInCertificateMode() async throws {
        let sandbox = try Self.sandbox()
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: Self.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let endpoint = try Endpoint(keys: keys)
        let number = TradeNumber.generate()
        let total = Money(minorUnits: 2599, currency: .cny)

        // No platform key yet: the first response's serial is unknown, so the client downloads the certificates.
        let prepay = try await client.prepay(
            .app, appID: "wxd678efh567hg6787", description: "v3", outTradeNo: number, total: total, notifyURL: endpoint.url)
        #expect(prepay.prepayID?.hasPrefix("wx") == true)
        #expect(keys.serials == [sandbox.wechatV3.platformCertificate.serialNumberHex])
        let app = try WeChatPay.V3.AppPayParameters(appID: "wxd678efh567hg6787", prepayID: prepay.prepayID!, merchant: Self.merchant)
        #expect(app.package == "Sign=WXPay")
        #expect(try await client.transaction(outTradeNo: number).tradeState == "NOTPAY")

        #expect(await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success) == "SUCCESS")
        let notified = try #require(try await endpoint.wait(for: number))
        #expect(notified.amount == total)
        #expect(notified.mchID == Self.merchant.mchID)
        let byID = try await client.transaction(transactionID: try #require(notified.transactionID))
        #expect(byID.isPaid && byID.outTradeNo == number)

        let refundID = try await client.refund(
            outTradeNo: number, outRefundNo: "R\(number)", total: total, refund: Money(minorUnits: 599, currency: .cny))
        #expect(refundID.hasPrefix("50"))
        #expect(try await client.refundStatus(outRefundNo: "R\(number)") == "SUCCESS")
        let tooMuch = await #expect(throws: PaymentError.self) {
            try await client.refund(
                outTradeNo: number, outRefundNo: "R2\(number)", total: total, refund: Money(minorUnits: 2001, currency: .cny))
        }
        #expect(tooMuch?.providerCode == "INVALID_REQUEST")
        let paidAgain = await #expect(throws: PaymentError.self) {
            try await client.prepay(
                .app, appID: "wxd678efh567hg6787", description: "v3", outTradeNo: number, total: total, notifyURL: endpoint.url)
        }
        #expect(paidAgain?.providerCode == "ORDERPAID")

        let other = TradeNumber.generate()
        let native = try await client.prepay(
            .native, appID: "wxd678efh567hg6787", description: "qr", outTradeNo: other, total: total, notifyURL: endpoint.url)
        #expect(native.codeURL?.hasPrefix("weixin://wxpay/bizpayurl") == true)
        try await client.close(outTradeNo: other)
        let h5 = try await client.prepay(
            .h5, appID: "wxd678efh567hg6787", description: "h5", outTradeNo: TradeNumber.generate(), total: total, notifyURL: endpoint.url,
            clientIP: "203.0.113.7")
        #expect(h5.h5URL?.contains("/sandbox/wechat/h5?prepay_id=wx") == true)  // the sandbox's own H5 cashier page
        #expect(try await client.transaction(outTradeNo: other).tradeState == "CLOSED")
        let missing = await #expect(throws: PaymentError.self) { try await client.transaction(outTradeNo: "NOPE") }
        #expect(missing?.providerCode == "ORDER_NOT_EXIST")
        await sandbox.stop()
    }

    /// An amount not written as a whole number of fen is refused as WeChat Pay refuses it — the
    /// common mistake of a price in yuan (`0.01`), or a float (`110.00000000000001`) — never
    /// rounded down and taken, which would hide the bug until the first real payment.
    @Test func amountsThatAreNotWholeFenAreRefusedAsWeChatPayRefusesThem() async throws {
        let sandbox = try Self.sandbox()
        let client = WeChatPay.V3.Client(merchant: Self.merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        func prepay(_ total: Any, number: String = TradeNumber.generate()) async throws -> Data {
            try await client.send(
                "POST", "/v3/pay/transactions/native",
                json: [
                    "appid": "wxd678efh567hg6787", "mchid": Self.merchant.mchID, "description": "v3", "out_trade_no": number,
                    "notify_url": "http://127.0.0.1:9/n", "amount": ["total": total, "currency": "CNY"],
                ])
        }
        // (A Double 110.0 is not among them: Foundation writes it `110`, as it should be.)
        for total in [0.01, 12.5, 110.00000000000001, "100", true] as [Any] {
            let refused = await #expect(throws: PaymentError.self) { try await prepay(total) }
            #expect(refused?.providerCode == "PARAM_ERROR", "\(total)")
            #expect(refused?.providerMessage == "无法将 JSON 输入源“/body/amount/total”映射到目标字段“总金额”中，此字段需要一个合法的 64 位有符号整数", "\(total)")
        }
        let number = TradeNumber.generate()
        _ = try await prepay(110, number: number)
        #expect(await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success) == "SUCCESS")
        for (refund, total, field) in [(0.5, 110, "refund"), (10, "110", "total")] as [(Any, Any, String)] {
            let refused = await #expect(throws: PaymentError.self) {
                try await client.send(
                    "POST", "/v3/refund/domestic/refunds",
                    json: [
                        "out_trade_no": number, "out_refund_no": "R" + number,
                        "amount": ["refund": refund, "total": total, "currency": "CNY"],
                    ])
            }
            #expect(refused?.providerCode == "PARAM_ERROR" && refused?.providerMessage?.contains("/body/amount/\(field)”") == true)
        }
        #expect(
            try await client.refund(
                outTradeNo: number, outRefundNo: "R" + number, total: Money(minorUnits: 110, currency: .cny),
                refund: Money(minorUnits: 10, currency: .cny)
            ).hasPrefix("50"))
        await sandbox.stop()
    }

    @Test func publicKeyModeAndWrongKeys() async throws {
        let sandbox = try Self.sandbox()
        await sandbox.wechatV3.setSigningMode(.publicKey)
        let keys = WeChatPay.V3.PlatformKeys()
        keys.add(publicKey: sandbox.wechatV3.platformPublicKey, id: sandbox.wechatV3.publicKeyID)
        let client = WeChatPay.V3.Client(merchant: Self.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let number = TradeNumber.generate()
        _ = try await client.prepay(
            .jsapi, appID: "wxd678efh567hg6787", description: "mini program", outTradeNo: number,
            total: Money(minorUnits: 1, currency: .cny),
            notifyURL: "http://127.0.0.1:9/n", openID: "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o")
        #expect(keys.serials == [sandbox.wechatV3.publicKeyID])  // nothing downloaded in public-key mode

        // A merchant whose private key the sandbox does not know is refused with SIGN_ERROR.
        let impostor = try WeChatPay.V3.Merchant(
            mchID: Self.merchant.mchID, certificateSerial: Self.merchant.certificateSerial,
            privateKey: TestKeys.rsa(1),
            apiV3Key: Self.apiV3Key)
        let refused = await #expect(throws: PaymentError.self) {
            try await WeChatPay.V3.Client(merchant: impostor, keys: keys, baseURL: sandbox.wechatV3URL).transaction(outTradeNo: number)
        }
        #expect(refused?.providerCode == "SIGN_ERROR")

        // A client that trusts a different platform key refuses the sandbox's responses.
        let strangerKeys = WeChatPay.V3.PlatformKeys()
        strangerKeys.add(publicKey: TestKeys.rsa(2).publicKey, id: sandbox.wechatV3.publicKeyID)
        let forged = await #expect(throws: PaymentError.self) {
            try await WeChatPay.V3.Client(merchant: Self.merchant, keys: strangerKeys, baseURL: sandbox.wechatV3URL).transaction(
                outTradeNo: number)
        }
        #expect(forged?.code == .signatureMismatch)
        await sandbox.stop()
    }
}

@Suite struct PlatformCertificateRefreshTests {
    /// Counts `/v3/certificates` downloads on the way through.
    final class Counting: HTTPTransport, Sendable {
        let downloads = Atomic<Int>(0)
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.path.hasSuffix("/v3/certificates") { downloads.add(1, ordering: .relaxed) }
            return try await URLSessionTransport().send(request)
        }
    }

    @Test func refreshRules() {
        let keys = WeChatPay.V3.PlatformKeys()
        let now = Date()
        #expect(!keys.needsRefresh(olderThan: 0, at: now))  // never downloaded: public-key mode or not started
        keys.markRefreshed(at: now)
        #expect(!keys.needsRefresh(olderThan: 3600, at: now.addingTimeInterval(3599)))
        #expect(keys.needsRefresh(olderThan: 3600, at: now.addingTimeInterval(3601)))
    }

    @Test func staleCertificatesAreRefreshedOnTheNextCall() async throws {
        let sandbox = try WeChatV3SandboxTests.sandbox()
        let counting = Counting()
        let keys = WeChatPay.V3.PlatformKeys()
        let fresh = WeChatPay.V3.Client(
            merchant: WeChatV3SandboxTests.merchant, keys: keys, transport: counting, baseURL: sandbox.wechatV3URL)
        _ = try await fresh.downloadCertificates()
        _ = try await fresh.prepay(
            .native, appID: "wx1", description: "r", outTradeNo: TradeNumber.generate(), total: Money(minorUnits: 1, currency: .cny),
            notifyURL: "http://127.0.0.1:9/n")
        #expect(counting.downloads.load(ordering: .relaxed) == 1)  // a verified answer within 12 hours: no refresh
        let eager = WeChatPay.V3.Client(
            merchant: WeChatV3SandboxTests.merchant, keys: keys, transport: counting, baseURL: sandbox.wechatV3URL,
            certificateRefreshInterval: 0)
        _ = try await eager.prepay(
            .native, appID: "wx1", description: "r", outTradeNo: TradeNumber.generate(), total: Money(minorUnits: 1, currency: .cny),
            notifyURL: "http://127.0.0.1:9/n")
        #expect(counting.downloads.load(ordering: .relaxed) == 2)
        await sandbox.stop()
    }
}

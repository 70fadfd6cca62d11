import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Our Alipay client against the Alipay sandbox over real sockets.
@Suite struct AlipaySandboxTests {
    static let appKey = TestKeys.rsa(0)
    static let appID = "2021000000000001"

    final class Inbox: Sendable {
        let bodies = Mutex<[[UInt8]]>([])
        let server: HTTPServer
        init() throws {
            let sink = Sink()
            server = HTTPServer(configuration: .init()) { request in
                sink.bodies.withLock { $0.append(request.body) }
                sink.arrivals.add()
                return .text(Alipay.Notification.successReply)
            }
            self.sink = sink
            try server.start()
        }
        final class Sink: Sendable {
            let bodies = Mutex<[[UInt8]]>([])
            let arrivals = Tally()
        }
        let sink: Sink
        var url: String { "http://127.0.0.1:\(server.port)/notify/alipay" }
        func first() async throws -> [UInt8]? {
            await sink.arrivals.first(within: .seconds(30)) { sink.bodies.withLock { $0.first } }
        }
    }

    @Test func precreatePayNotifyQueryRefundClose() async throws {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Self.appID: Self.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let inbox = try Inbox()
        let client = Alipay.Client(
            appID: Self.appID, signer: Alipay.Signer(privateKey: Self.appKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
            gateway: sandbox.alipayGatewayURL)
        let number = TradeNumber.generate()
        let total = Money(minorUnits: 5100, currency: .cny)
        let qr = try await client.precreate(outTradeNo: number, total: total, subject: "2 杯拿铁", notifyURL: inbox.url)
        #expect(qr.hasPrefix("https://qr.alipay.com/"))
        #expect(try await client.query(outTradeNo: number).tradeStatus == "WAIT_BUYER_PAY")

        #expect(await sandbox.alipay.pay(outTradeNo: number, outcome: .success) == "TRADE_SUCCESS")
        let body = try #require(try await inbox.first())
        let notification = try Alipay.Notification.verify(
            body, publicKey: sandbox.alipay.alipayPublicKey, appID: Self.appID, sellerID: sandbox.alipay.sellerID)
        try notification.check(outTradeNo: number, amount: total)
        #expect(try await client.query(outTradeNo: number).isPaid)

        #expect(
            try await client.refund(outTradeNo: number, amount: Money(minorUnits: 1000, currency: .cny), outRequestNo: "R1")
                == Money(minorUnits: 1000, currency: .cny))
        #expect(
            try await client.refund(outTradeNo: number, amount: Money(minorUnits: 1000, currency: .cny), outRequestNo: "R1")
                == Money(minorUnits: 1000, currency: .cny))
        let over = await #expect(throws: PaymentError.self) {
            try await client.refund(outTradeNo: number, amount: Money(minorUnits: 4101, currency: .cny), outRequestNo: "R2")
        }
        #expect(over?.providerCode == "ACQ.REFUND_AMT_NOT_EQUAL_TOTAL")
        #expect(try await client.refundQuery(outTradeNo: number, outRequestNo: "R1") == Money(minorUnits: 1000, currency: .cny))
        #expect(try await client.refundQuery(outTradeNo: number, outRequestNo: "NONE") == nil)
        let paidAgain = await #expect(throws: PaymentError.self) {
            try await client.precreate(outTradeNo: number, total: total, subject: "x", notifyURL: inbox.url)
        }
        #expect(paidAgain?.providerCode == "ACQ.TRADE_HAS_SUCCESS")

        let other = TradeNumber.generate()
        _ = try await client.precreate(outTradeNo: other, total: total, subject: "x", notifyURL: inbox.url)
        try await client.close(outTradeNo: other)
        #expect(try await client.query(outTradeNo: other).tradeStatus == "TRADE_CLOSED")
        let missing = await #expect(throws: PaymentError.self) { try await client.query(outTradeNo: "NONE") }
        #expect(missing?.providerCode == "ACQ.TRADE_NOT_EXIST")

        // Today's bill (Beijing time) holds the payment and the one refund; the link is single-use-ish and short-lived.
        let today = Self.beijingDay(Date())
        let bill = try await client.downloadBill(date: today)
        #expect(bill.account.hasPrefix(sandbox.alipay.sellerID))
        let rows = bill.rows.filter { $0.outTradeNo == number }
        #expect(rows.map(\.kind) == [.trade, .refund])
        #expect(rows.first?.amount == total && rows.first?.subject == "2 杯拿铁")
        #expect(rows.last?.amount == Money(minorUnits: -1000, currency: .cny) && rows.last?.refundRequestNo == "R1")
        #expect(!bill.rows.contains { $0.outTradeNo == other })
        let yesterday = try await client.downloadBill(date: Self.beijingDay(Date().addingTimeInterval(-86_400)))
        #expect(yesterday.rows.isEmpty)
        for bad in ["2026/11/29", Self.beijingDay(Date().addingTimeInterval(3 * 86_400))] {
            let refusedBill = await #expect(throws: PaymentError.self, "\(bad)") { try await client.downloadBill(date: bad) }
            #expect(refusedBill?.providerCode == "isp.bill_not_exist")
        }
        let link = try #require(URL(string: try await client.billDownloadURL(date: today)))
        let forged = link.absoluteString.replacingOccurrences(of: "token=", with: "token=x")
        #expect(try await URLSessionTransport().send(HTTPRequest(method: "GET", url: URL(string: forged)!)).status == 404)
        await sandbox.stop()
    }

    static func beijingDay(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter.string(from: date)
    }

    @Test func wrongKeysAndGetRequests() async throws {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Self.appID: Self.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let impostor = Alipay.Client(
            appID: Self.appID, signer: Alipay.Signer(privateKey: TestKeys.rsa(1)),
            alipayPublicKey: sandbox.alipay.alipayPublicKey, gateway: sandbox.alipayGatewayURL)
        let refused = await #expect(throws: PaymentError.self) { try await impostor.query(outTradeNo: "X") }
        #expect(refused?.providerCode == "isv.invalid-signature")
        // A client that trusts another Alipay key refuses the sandbox's answers.
        let distrustful = Alipay.Client(
            appID: Self.appID, signer: Alipay.Signer(privateKey: Self.appKey),
            alipayPublicKey: TestKeys.rsa(2).publicKey,
            gateway: sandbox.alipayGatewayURL)
        let forged = await #expect(throws: PaymentError.self) { try await distrustful.query(outTradeNo: "X") }
        #expect(forged?.code == .signatureMismatch)
        // A signed GET (as page-pay URLs and python-alipay-sdk send) is accepted too.
        let client = Alipay.Client(
            appID: Self.appID, signer: Alipay.Signer(privateKey: Self.appKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
            gateway: sandbox.alipayGatewayURL)
        let parameters = try client.signedParameters(method: "alipay.trade.query", biz: ["out_trade_no": "NONE"])
        let query = Alipay.FormBody.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let response = try await URLSessionTransport().send(
            HTTPRequest(method: "GET", url: URL(string: sandbox.alipayGatewayURL.absoluteString + "?" + query)!))
        let node = try Alipay.ResponseNode(text: String(decoding: response.body, as: UTF8.self), name: "alipay_trade_query_response")
        try node.verify(publicKey: sandbox.alipay.alipayPublicKey)
        #expect(node.raw.contains("ACQ.TRADE_NOT_EXIST"))
        let page = try client.paymentPageURL(
            method: "alipay.trade.wap.pay", outTradeNo: "W1", total: Money(minorUnits: 1, currency: .cny), subject: "wap",
            notifyURL: "https://n",
            returnURL: "https://r")
        #expect(page.absoluteString.contains("method=alipay.trade.wap.pay"))
        #expect(page.absoluteString.contains("QUICK_WAP_WAY"))
        await sandbox.stop()
    }
}

/// App pay: the payer API plays the Alipay app given the order string.
@Suite struct AlipayAppPayTests {
    @Test func orderStringToSyncResultAndNotification() async throws {
        let sandbox = SandboxServer(
            wechatMerchants: [], alipayApps: [AlipaySandboxTests.appID: AlipaySandboxTests.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let inbox = try AlipaySandboxTests.Inbox()
        let signer = Alipay.Signer(privateKey: AlipaySandboxTests.appKey)
        let number = TradeNumber.generate()
        let orderString = try Alipay.OrderString.make(
            appID: AlipaySandboxTests.appID, signer: signer, notifyURL: inbox.url,
            bizContent: #"{"out_trade_no":"\#(number)","total_amount":"12.34","subject":"app pay","product_code":"QUICK_MSECURITY_PAY"}"#)

        func launch(_ orderString: String, _ outcome: String) async throws -> [String: String] {
            let body = try JSONSerialization.data(withJSONObject: ["provider": "alipay", "order_string": orderString, "outcome": outcome])
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/pay"), body: body))
            return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: String])
        }

        #expect(try await launch(orderString, "cancel")["resultStatus"] == "6001")
        let tampered = orderString.replacingOccurrences(of: "12.34", with: "0.01")
        #expect(try await launch(tampered, "success")["resultStatus"] == "4000")
        let paid = try await launch(orderString, "success")
        #expect(paid["resultStatus"] == "9000")
        #expect(Alipay.PaymentOutcome(resultStatus: paid["resultStatus"] ?? "").mustConfirmWithServer)
        let content = try Alipay.SyncResult.verify(paid["result"] ?? "", publicKey: sandbox.alipay.alipayPublicKey)
        #expect(content.contains(number))
        let body = try #require(try await inbox.first())
        let notification = try Alipay.Notification.verify(body, publicKey: sandbox.alipay.alipayPublicKey, appID: AlipaySandboxTests.appID)
        try notification.check(outTradeNo: number, amount: Money(minorUnits: 1234, currency: .cny))
        await sandbox.stop()
    }
}

/// Wap/page pay: the sandbox's cashier page, as a payer's browser sees it.
@Suite struct AlipayCashierPageTests {
    /// Follows no redirects, so the 303 back to the merchant can be inspected.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    @Test func payOnTheCashierPageAndReturn() async throws {
        let sandbox = SandboxServer(
            wechatMerchants: [], alipayApps: [AlipaySandboxTests.appID: AlipaySandboxTests.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let inbox = try AlipaySandboxTests.Inbox()
        let client = Alipay.Client(
            appID: AlipaySandboxTests.appID, signer: Alipay.Signer(privateKey: AlipaySandboxTests.appKey),
            alipayPublicKey: sandbox.alipay.alipayPublicKey, gateway: sandbox.alipayGatewayURL)
        let number = TradeNumber.generate()
        let url = try client.paymentPageURL(
            method: "alipay.trade.wap.pay", outTradeNo: number, total: Money(minorUnits: 990, currency: .cny),
            subject: "<script>alert(1)</script> latte", notifyURL: inbox.url, returnURL: "https://shop.example/return")
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        let (pageData, pageResponse) = try await session.data(from: url)
        #expect((pageResponse as? HTTPURLResponse)?.statusCode == 200)
        let page = String(decoding: pageData, as: UTF8.self)
        #expect(page.contains("¥9.90"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; latte"))
        #expect(!page.contains("<script>"))
        #expect(
            (pageResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Security-Policy")?.contains("default-src 'none'") == true
        )
        let token = try #require(page.range(of: #"name="token" value=""#).map { String(page[$0.upperBound...].prefix(32)) })

        var pay = URLRequest(url: sandbox.baseURL.appendingPathComponent("alipay/cashier"))
        pay.httpMethod = "POST"
        pay.httpBody = Data("token=\(token)&action=pay".utf8)
        let (_, payResponse) = try await session.data(for: pay)
        let http = try #require(payResponse as? HTTPURLResponse)
        #expect(http.statusCode == 303)
        let location = try #require(http.value(forHTTPHeaderField: "Location"))
        #expect(location.hasPrefix("https://shop.example/return?"))
        var fields = try Alipay.FormBody.parse(Array(location.split(separator: "?", maxSplits: 1)[1].utf8))
        #expect(fields["out_trade_no"] == number)
        try Alipay.Notification.verifySignature(fields, publicKey: sandbox.alipay.alipayPublicKey, signType: .rsa2)
        fields["total_amount"] = "0.01"
        #expect(throws: PaymentError.self) {
            try Alipay.Notification.verifySignature(fields, publicKey: sandbox.alipay.alipayPublicKey, signType: .rsa2)
        }
        #expect(try await inbox.first() != nil)
        #expect(try await client.query(outTradeNo: number).isPaid)

        // A used token is refused; a page request with a bad signature is refused.
        let (_, again) = try await session.data(for: pay)
        #expect((again as? HTTPURLResponse)?.statusCode == 400)
        let forged = URL(string: url.absoluteString.replacingOccurrences(of: "9.90", with: "0.01"))!
        let (_, forgedResponse) = try await session.data(from: forged)
        #expect((forgedResponse as? HTTPURLResponse)?.statusCode == 400)

        // page.pay as the auto-submitting form: what a browser would post lands on the cashier.
        let form = try client.paymentPageForm(
            method: "alipay.trade.page.pay", outTradeNo: TradeNumber.generate(), total: Money(minorUnits: 1234, currency: .cny),
            subject: #"Tom's "best" <b>tea</b>"#, notifyURL: inbox.url, returnURL: "https://shop.example/return")
        #expect(form.hasSuffix("<script>document.forms['alipaysubmit'].submit();</script>"))
        #expect(!form.contains("<b>") && form.contains("&lt;b&gt;"))
        let posted = Self.hiddenInputs(form)
        #expect(posted["method"] == "alipay.trade.page.pay" && posted["sign"] != nil)
        let action = try #require(form.range(of: #"action=""#).map { form[$0.upperBound...].prefix { $0 != "\"" } })
        var submit = URLRequest(url: try #require(URL(string: Self.unescapeHTML(String(action)))))
        submit.httpMethod = "POST"
        submit.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        submit.httpBody = Data(Alipay.FormBody.encode(posted.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        let (cashierData, cashierResponse) = try await session.data(for: submit)
        #expect((cashierResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: cashierData, as: UTF8.self).contains("¥12.34"))
        await sandbox.stop()
    }

    /// The hidden inputs of an HTML form, unescaped.
    static func hiddenInputs(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for piece in html.components(separatedBy: "<input type=\"hidden\" name=\"").dropFirst() {
            let name = piece.prefix { $0 != "\"" }
            guard let value = piece.range(of: "value=\"").map({ piece[$0.upperBound...].prefix { $0 != "\"" } }) else { continue }
            fields[unescapeHTML(String(name))] = unescapeHTML(String(value))
        }
        return fields
    }

    static func unescapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// An ISV calling for merchants that authorised it: each `app_auth_token` acts for its merchant
/// only, an unknown one is refused, and the trades' notifications name the merchant.
@Suite struct AlipayISVSandboxTests {
    @Test func appAuthTokensActForTheirMerchantOnly() async throws {
        let isvKey = AlipaySandboxTests.appKey
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: ["2021000000000099": isvKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        for (token, merchant) in [("tokenNorth", "2021000000000077"), ("tokenSouth", "2021000000000078")] {
            let grant = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/alipay/app_auth_tokens"),
                    body: Data(#"{"app_auth_token":"\#(token)","merchant_app_id":"\#(merchant)"}"#.utf8)))
            #expect(grant.status == 200)
        }
        func client(_ token: String?) -> Alipay.Client {
            Alipay.Client(
                appID: "2021000000000099", signer: Alipay.Signer(privateKey: isvKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
                gateway: sandbox.alipayGatewayURL, appAuthToken: token)
        }
        let inbox = try AlipaySandboxTests.Inbox()
        let number = TradeNumber.generate()
        _ = try await client("tokenNorth").precreate(
            outTradeNo: number, total: Money(minorUnits: 500, currency: .cny), subject: "isv", notifyURL: inbox.url)
        #expect(try await client("tokenNorth").query(outTradeNo: number).tradeStatus == "WAIT_BUYER_PAY")
        // Another merchant's token, or the ISV's own calls, do not see north's trade; an unknown token is refused.
        let other = await #expect(throws: PaymentError.self) { try await client("tokenSouth").query(outTradeNo: number) }
        #expect(other?.providerCode == "ACQ.TRADE_NOT_EXIST")
        await #expect(throws: PaymentError.self) { _ = try await client(nil).query(outTradeNo: number) }
        let unknown = await #expect(throws: PaymentError.self) { try await client("forged").query(outTradeNo: number) }
        #expect(unknown?.providerCode == "aop.invalid-app-auth-token")
        // The notification names the merchant that authorised the ISV.
        await sandbox.alipay.pay(outTradeNo: number, outcome: .success)
        let body = try #require(try await inbox.first())
        let notification = try Alipay.Notification.verify(body, publicKey: sandbox.alipay.alipayPublicKey, appID: "2021000000000099")
        #expect(notification.fields["auth_app_id"] == "2021000000000077")
        await inbox.server.stop()
        await sandbox.stop()
    }
}

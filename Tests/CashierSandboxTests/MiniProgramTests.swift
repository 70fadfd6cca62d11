import Cashier
import CashierSandbox
import Testing
import WeChatPay

/// The mini-program flow: `wx.login` code → openid on the server → JSAPI order.
@Suite struct MiniProgramTests {
    @Test func codeForOpenIDThenJSAPIOrder() async throws {
        let merchant = WeChatPay.V2.Merchant(appID: "wxminiprogram0001", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")
        let sandbox = SandboxServer(wechatMerchants: [merchant], miniProgramSecrets: ["wxminiprogram0001": "mini-secret"], timeScale: 0.001)
        try sandbox.start()
        let miniProgram = WeChatPay.MiniProgram(appID: "wxminiprogram0001", secret: "mini-secret", baseURL: sandbox.miniProgramURL)
        let session = try await miniProgram.session(code: "061Ab2ll2fB8Wd4Qm1ll2JzXH83Ab2lJ")
        #expect(session.openID.hasPrefix("o") && session.openID.count == 28)
        #expect(!"\(session)".contains(session.sessionKey))
        // A code is good once.
        let reused = await #expect(throws: PaymentError.self) { try await miniProgram.session(code: "061Ab2ll2fB8Wd4Qm1ll2JzXH83Ab2lJ") }
        #expect(reused?.providerCode == "40163")
        let wrongSecret = await #expect(throws: PaymentError.self) {
            try await WeChatPay.MiniProgram(appID: "wxminiprogram0001", secret: "guess", baseURL: sandbox.miniProgramURL).session(code: "x")
        }
        #expect(wrongSecret?.providerCode == "40125")

        let client = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        let noOpenID = await #expect(throws: PaymentError.self) {
            try await client.unifiedOrder(
                .init(
                    tradeType: .jsapi, body: "mini", outTradeNo: number, total: Money(minorUnits: 1, currency: .cny),
                    notifyURL: "http://127.0.0.1:9/n",
                    clientIP: "127.0.0.1"))
        }
        #expect(noOpenID?.providerCode == "PARAM_ERROR")
        let prepay = try await client.unifiedOrder(
            .init(
                tradeType: .jsapi, body: "mini", outTradeNo: number, total: Money(minorUnits: 1, currency: .cny),
                notifyURL: "http://127.0.0.1:9/n",
                clientIP: "127.0.0.1", openID: session.openID))
        let parameters = WeChatPay.V2.JSAPIParameters(prepayID: prepay.prepayID, merchant: merchant)
        #expect(parameters.package == "prepay_id=\(prepay.prepayID)")
        await sandbox.stop()
    }
}

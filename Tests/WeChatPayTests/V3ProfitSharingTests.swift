import Cashier
import CashierCrypto
import Foundation
import Testing

@testable import WeChatPay

/// Profit sharing (分账): the requests as WeChat documents them (paths, JSON, `Wechatpay-Serial`
/// with a name encrypted for the platform key and decrypting with it), the documented answers
/// read as they are, and every request WeChat would refuse refused before anything is sent.
@Suite struct V3ProfitSharingTests {
    static let transactionID = "4208450740201411110007820472"

    /// A client whose platform key is `platform` (public-key mode, `PUB_KEY_ID_0114232134912410000000000000`).
    static func client(_ transport: V3ComplaintTests.Recording, platform: RSAPrivateKey) throws -> WeChatPay.V3.Client {
        let client = try V3ComplaintTests.client(transport)
        client.keys.add(publicKey: platform.publicKey, id: "PUB_KEY_ID_0114232134912410000000000000")
        return client
    }

    static func json(_ request: HTTPRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
    }

    @Test func addingAReceiverSendsTheNameEncryptedForThePlatformKeyWithItsSerial() async throws {
        let platform = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let transport = V3ComplaintTests.Recording(answer: HTTPResponse(status: 500))
        let client = try Self.client(transport, platform: platform)
        let receiver = WeChatPay.V3.ProfitSharingReceiver(
            appID: "wx8888888888888888", type: .merchantID, account: "86693852", name: "深圳市示例科技有限公司", relationType: "CUSTOM",
            customRelation: "代理商")
        await #expect(throws: PaymentError.self) { try await client.addProfitSharingReceiver(receiver) }
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST" && request.url.path == "/v3/profitsharing/receivers/add")
        #expect(request.headers["Wechatpay-Serial"] == "PUB_KEY_ID_0114232134912410000000000000")
        #expect(V3ComplaintTests.verifies(request, signedBody: String(decoding: request.body, as: UTF8.self)))
        let body = try Self.json(request)
        #expect(body["appid"] as? String == "wx8888888888888888" && body["type"] as? String == "MERCHANT_ID")
        #expect(body["account"] as? String == "86693852" && body["relation_type"] as? String == "CUSTOM")
        #expect(body["custom_relation"] as? String == "代理商")
        let cipher = try #require(body["name"] as? String)
        #expect(cipher != "深圳市示例科技有限公司")
        let plain = try platform.decrypt(Base64.decodeBytes(cipher), padding: .insecureOAEPSHA1)
        #expect(String(decoding: plain, as: UTF8.self) == "深圳市示例科技有限公司")
        // Deleting sends no name and no serial.
        await #expect(throws: PaymentError.self) { try await client.deleteProfitSharingReceiver(receiver) }
        let delete = try #require(transport.requests.last)
        #expect(delete.url.path == "/v3/profitsharing/receivers/delete" && delete.headers["Wechatpay-Serial"] == nil)
        #expect(try Self.json(delete).keys.sorted() == ["account", "appid", "type"])
    }

    @Test func aShareIsSentAsDocumentedAndTheOtherCallsUseTheirPaths() async throws {
        let platform = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let transport = V3ComplaintTests.Recording(answer: HTTPResponse(status: 500))
        let client = try Self.client(transport, platform: platform)
        let request = WeChatPay.V3.ProfitSharingOrderRequest(
            appID: "wx8888888888888888", transactionID: Self.transactionID, outOrderNo: "P20150806125346",
            receivers: [
                .init(type: .merchantID, account: "86693852", name: "示例商户", amount: 888, description: "分给商户A"),
                .init(type: .personalOpenID, account: "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", amount: 100, description: "分给个人"),
            ], unfreezeUnsplit: true)
        await #expect(throws: PaymentError.self) { try await client.createProfitSharingOrder(request) }
        let sent = try #require(transport.requests.first)
        #expect(sent.url.path == "/v3/profitsharing/orders" && sent.headers["Wechatpay-Serial"] != nil)
        let body = try Self.json(sent)
        #expect(body["transaction_id"] as? String == Self.transactionID && body["out_order_no"] as? String == "P20150806125346")
        #expect(body["unfreeze_unsplit"] as? Bool == true)
        let receivers = try #require(body["receivers"] as? [[String: Any]])
        #expect(receivers.map { $0["amount"] as? Int } == [888, 100])
        #expect(receivers[1]["name"] == nil && receivers[0]["description"] as? String == "分给商户A")
        let name = try platform.decrypt(Base64.decodeBytes(try #require(receivers[0]["name"] as? String)), padding: .insecureOAEPSHA1)
        #expect(String(decoding: name, as: UTF8.self) == "示例商户")
        // Without a name there is nothing to encrypt and no serial.
        var plain = request
        plain.receivers = [.init(type: .personalOpenID, account: "oUpF8u", amount: 1, description: "d")]
        await #expect(throws: PaymentError.self) { try await client.createProfitSharingOrder(plain) }
        #expect(transport.requests.last?.headers["Wechatpay-Serial"] == nil)

        _ = try? await client.profitSharingOrder(outOrderNo: "P20150806125346", transactionID: Self.transactionID)
        _ = try? await client.unfreezeProfitSharing(transactionID: Self.transactionID, outOrderNo: "P2015-unfreeze", description: "解冻")
        _ = try? await client.createProfitSharingReturn(
            .init(outOrderNo: "P20150806125346", outReturnNo: "R20190516001", returnMchID: "86693852", amount: 10, description: "用户退款"))
        _ = try? await client.profitSharingReturn(outReturnNo: "R20190516001", outOrderNo: "P20150806125346")
        _ = try? await client.profitSharingUnsplitAmount(transactionID: Self.transactionID)
        _ = try? await client.profitSharingMaxRatio(subMchID: "1900000109")
        let calls = transport.requests.suffix(6).map { "\($0.method) \($0.url.path)\($0.url.query.map { "?" + $0 } ?? "")" }
        #expect(
            calls == [
                "GET /v3/profitsharing/orders/P20150806125346?transaction_id=\(Self.transactionID)",
                "POST /v3/profitsharing/orders/unfreeze",
                "POST /v3/profitsharing/return-orders",
                "GET /v3/profitsharing/return-orders/R20190516001?out_order_no=P20150806125346",
                "GET /v3/profitsharing/transactions/\(Self.transactionID)/amounts",
                "GET /v3/profitsharing/merchant-configs/1900000109",
            ])
        let unfreeze = try Self.json(transport.requests[transport.requests.count - 5])
        #expect(unfreeze.keys.sorted() == ["description", "out_order_no", "transaction_id"])
        let returned = try Self.json(transport.requests[transport.requests.count - 4])
        #expect(returned["return_mchid"] as? String == "86693852" && returned["amount"] as? Int == 10 && returned["order_id"] == nil)
    }

    @Test func theDocumentedAnswersDecode() throws {
        let order = try WeChatPay.V3.ProfitSharingOrder.decode(
            Array(
                """
                {"transaction_id":"4208450740201411110007820472","out_order_no":"P20150806125346","order_id":"3008450740201411110007820472",\
                "state":"FINISHED","receivers":[{"amount":100,"description":"分给商户1900000110","type":"MERCHANT_ID","account":"1900000109",\
                "result":"CLOSED","fail_reason":"ACCOUNT_ABNORMAL","detail_id":"36011111111111111111111","create_time":"2015-05-20T13:29:35.120+08:00",\
                "finish_time":"2015-05-20T13:29:35.120+08:00"}]}
                """.utf8))
        #expect(order.state == .finished && order.orderID == "3008450740201411110007820472")
        #expect(order.receivers.count == 1 && order.receivers[0].result == .closed && order.receivers[0].failReason == "ACCOUNT_ABNORMAL")
        #expect(order.receivers[0].type == .merchantID && order.receivers[0].amount == 100 && order.receivers[0].detailID != nil)
        let returned = try WeChatPay.V3.ProfitSharingReturn.decode(
            Array(
                """
                {"order_id":"3008450740201411110007820472","out_order_no":"P20150806125346","out_return_no":"R20190516001",\
                "return_id":"3008450740201411110007820472","return_mchid":"86693852","amount":10,"description":"用户退款",\
                "result":"FAILED","fail_reason":"BALANCE_NOT_ENOUGH","create_time":"2015-05-20T13:29:35.120+08:00"}
                """.utf8))
        #expect(returned.result == .failed && returned.failReason == "BALANCE_NOT_ENOUGH" && returned.amount == 10)
        #expect(throws: PaymentError.self) { try WeChatPay.V3.ProfitSharingOrder.decode(Array(#"{"state":"FINISHED"}"#.utf8)) }
        #expect(throws: PaymentError.self) { try WeChatPay.V3.ProfitSharingReturn.decode(Array(#"{"result":"SUCCESS"}"#.utf8)) }
    }

    static func share(amount: Int64 = 10, description: String = "分账", type: WeChatPay.V3.ProfitSharingReceiver.Kind = .merchantID)
        -> WeChatPay.V3.ProfitSharingOrderRequest.Share
    {
        .init(type: type, account: "86693852", amount: amount, description: description)
    }

    static func order(_ receivers: [WeChatPay.V3.ProfitSharingOrderRequest.Share], outOrderNo: String = "P1")
        -> WeChatPay.V3.ProfitSharingOrderRequest
    {
        .init(
            appID: "wx8888888888888888", transactionID: transactionID, outOrderNo: outOrderNo, receivers: receivers, unfreezeUnsplit: false)
    }

    @Test func requestsWeChatRefusesAreRefusedBeforeSending() async throws {
        let transport = V3ComplaintTests.Recording(answer: HTTPResponse(status: 500))
        let client = try Self.client(transport, platform: try RSAPrivateKey(generatingKeySizeInBits: 2048))
        let refusedOrders: [WeChatPay.V3.ProfitSharingOrderRequest] = [
            Self.order([]), Self.order(Array(repeating: Self.share(), count: 51)), Self.order([Self.share(amount: 0)]),
            Self.order([Self.share(amount: -1)]), Self.order([Self.share(description: "")]),
            Self.order([Self.share(description: String(repeating: "长", count: 81))]),
            Self.order([Self.share(type: .init(rawValue: "EMAIL"))]),
            Self.order([Self.share()], outOrderNo: ""), Self.order([Self.share()], outOrderNo: "has space"),
            Self.order([Self.share()], outOrderNo: "单号"), Self.order([Self.share()], outOrderNo: String(repeating: "a", count: 65)),
            Self.order([Self.share()], outOrderNo: "../../v3/certificates"),
        ]
        for request in refusedOrders {
            let error = await #expect(throws: PaymentError.self) { try await client.createProfitSharingOrder(request) }
            #expect(error?.code == .invalidRequest)
        }
        #expect(throws: Never.self) { try Self.order(Array(repeating: Self.share(), count: 50), outOrderNo: "a_b-c|d*e@f").validate() }
        #expect(throws: Never.self) { try Self.order([Self.share(description: String(repeating: "长", count: 80))]).validate() }
        let receivers: [WeChatPay.V3.ProfitSharingReceiver] = [
            .init(appID: "wx1", type: .merchantID, account: "86693852", relationType: "STORE"),  // a merchant without its name
            .init(appID: "wx1", type: .personalOpenID, account: "o1", relationType: "FRIEND"),
            .init(appID: "wx1", type: .personalOpenID, account: "o1", relationType: "CUSTOM"),
            .init(
                appID: "wx1", type: .personalOpenID, account: "o1", relationType: "CUSTOM",
                customRelation: String(repeating: "长", count: 11)),
            .init(appID: "", type: .personalOpenID, account: "o1", relationType: "USER"),
            .init(appID: "wx1", type: .init(rawValue: "EMAIL"), account: "o1", relationType: "USER"),
        ]
        for receiver in receivers {
            await #expect(throws: PaymentError.self) { try await client.addProfitSharingReceiver(receiver) }
        }
        let returns: [WeChatPay.V3.ProfitSharingReturnRequest] = [
            .init(outReturnNo: "R1", returnMchID: "86693852", amount: 1, description: "d"),  // neither order number
            .init(outOrderNo: "P1", outReturnNo: "R 1", returnMchID: "86693852", amount: 1, description: "d"),
            .init(outOrderNo: "P1", outReturnNo: "R1", returnMchID: "oUser", amount: 1, description: "d"),
            .init(outOrderNo: "P1", outReturnNo: "R1", returnMchID: "86693852", amount: 0, description: "d"),
            .init(outOrderNo: "P1", outReturnNo: "R1", returnMchID: "86693852", amount: 1, description: ""),
        ]
        for request in returns {
            await #expect(throws: PaymentError.self) { try await client.createProfitSharingReturn(request) }
        }
        await #expect(throws: PaymentError.self) { try await client.profitSharingOrder(outOrderNo: "P1", transactionID: "../x") }
        await #expect(throws: PaymentError.self) { try await client.profitSharingUnsplitAmount(transactionID: "") }
        await #expect(throws: PaymentError.self) {
            try await client.unfreezeProfitSharing(transactionID: Self.transactionID, outOrderNo: "P2", description: "")
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aNameWithNoPlatformKeyIsNeverSentInClear() throws {
        let request = WeChatPay.V3.ProfitSharingReceiver(
            appID: "wx1", type: .merchantID, account: "86693852", name: "示例商户", relationType: "STORE")
        #expect(throws: PaymentError.self) { try request.addBody(encryptingFor: nil) }
        #expect(throws: PaymentError.self) {
            try Self.order([.init(type: .merchantID, account: "1", name: "示例", amount: 1, description: "d")]).body(encryptingFor: nil)
        }
    }

    @Test func prepaySendsSettleInfoOnlyWhenSharing() async throws {
        let transport = V3ComplaintTests.Recording(answer: HTTPResponse(status: 500))
        let client = try V3ComplaintTests.client(transport)
        for sharing in [false, true] {
            _ = try? await client.prepay(
                .native, appID: "wx1", description: "d", outTradeNo: "T1", total: Money(minorUnits: 100, currency: .cny),
                notifyURL: "https://shop.example/notify", profitSharing: sharing)
        }
        let bodies = try transport.requests.map(Self.json)
        #expect(bodies[0]["settle_info"] == nil)
        #expect((bodies[1]["settle_info"] as? [String: Any])?["profit_sharing"] as? Bool == true)
    }
}

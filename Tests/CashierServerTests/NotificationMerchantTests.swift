import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

/// Issue 58, item 9: a notification moves only a payment of the merchant its signed content names.
/// Every sub-merchant's WeChat Pay v2 messages are signed with the one service-provider key, so a
/// genuine message of `south`'s — or one its holder made up — must never move `north`'s payment,
/// whatever path it is posted to. A v2 refund result signs nothing outside its encrypted
/// `req_info`: its outer `sub_mch_id` decides nothing, and the refund is the path's merchant's.
@Suite struct NotificationMerchantTests {
    static let southSubMchID = IdempotencyScopeTests.south.wechatSubMchID ?? ""

    /// The service provider's v2 merchant: its key signs every sub-merchant's messages.
    static func serviceProvider(_ world: MoneyWorld) throws -> WeChatPay.V2.Merchant {
        try #require(world.mode.configuration.serviceProvider?.wechat?.merchant)
    }

    /// A v2 payment result for `number`, naming `subMchID`, signed with the service provider's key.
    static func paymentResult(_ sp: WeChatPay.V2.Merchant, number: String, fee: Int, subMchID: String) -> [UInt8] {
        var fields: [(String, String)] = [
            ("appid", sp.appID), ("mch_id", sp.mchID), ("sub_mch_id", subMchID), ("nonce_str", "n0nce"), ("result_code", "SUCCESS"),
            ("return_code", "SUCCESS"), ("out_trade_no", number), ("transaction_id", "4200000000202612070000001"),
            ("total_fee", String(fee)), ("fee_type", "CNY"), ("trade_type", "NATIVE"), ("openid", "oAttacker"),
            ("time_end", "20261207120000"),
        ]
        fields.append(("sign", sp.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: .md5)))
        return Array(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
    }

    /// A v2 refund result: `req_info` encrypted under the service provider's key; the outer
    /// `sub_mch_id` (unsigned, as WeChat sends it) set to `outerSubMchID`.
    static func refundResult(
        _ sp: WeChatPay.V2.Merchant, number: String, refundNumber: String, fee: Int, refunded: Int, outerSubMchID: String
    ) throws -> [UInt8] {
        let inner = WeChatPay.V2.XMLDocument(
            root: "root",
            [
                ("out_refund_no", refundNumber), ("out_trade_no", number), ("refund_fee", String(refunded)),
                ("refund_id", "50300000002026120700000001"), ("refund_status", "SUCCESS"), ("settlement_refund_fee", String(refunded)),
                ("settlement_total_fee", String(fee)), ("success_time", "2026-12-07 12:00:00"), ("total_fee", String(fee)),
                ("transaction_id", "4200000000202612070000002"),
            ])
        let key = Array(Hex.encode(DigestAlgorithm.insecureMD5.hash(sp.apiKey)).utf8)
        let encrypted = try InsecureAESECB.encrypt(Array(inner.xmlString.utf8), key: key)
        let outer = WeChatPay.V2.XMLDocument([
            ("return_code", "SUCCESS"), ("appid", sp.appID), ("mch_id", sp.mchID), ("sub_mch_id", outerSubMchID),
            ("nonce_str", "n0nce"), ("req_info", Base64.encode(encrypted)),
        ])
        return Array(outer.xmlString.utf8)
    }

    /// Posts a notification to `path` on instance `index`: WeChat's answer (`SUCCESS` or `FAIL`).
    static func post(_ world: MoneyWorld, _ path: String, _ body: [UInt8], via index: Int = 0) async -> String {
        let answer = await world.servers[index % world.servers.count].respond(
            InProcess.request("POST", path, headers: ["Content-Type": "text/xml"], body: body))
        return (try? WeChatPay.V2.XMLDocument(parsing: answer.body))?["return_code"] ?? "status \(answer.status)"
    }

    /// A north order with a v2 payment started: its id and the payment's trade number.
    static func northPayment(_ world: MoneyWorld, amount: String) async throws -> (id: String, number: String) {
        let created = try await world.call(
            "POST", "/v1/orders",
            json: ["items": [["label": "Latte", "amount": amount]], "currency": "CNY", "description": "Latte", "merchant": "north"])
        try #require(created.status == 201)
        let id = try #require(created.object["id"] as? String)
        let started = try await world.start(id, "wechat.native", api: "v2")
        return (id, try #require(started["out_trade_no"] as? String))
    }

    static func refusedForMerchant(_ world: MoneyWorld, _ id: String) async throws -> Bool {
        try await world.store.events(orderID: id).contains { $0.kind == .notificationRefused && $0.detail.contains("merchant") }
    }

    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func southsSignedResultNeverPaysNorthsPayment(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.subMerchants.append(IdempotencyScopeTests.south) }
        let sp = try Self.serviceProvider(world)
        let north = try await Self.northPayment(world, amount: "8.00")
        // Signed with the shared key, naming south, carrying north's trade number: on south's path
        // (where its sub_mch_id matches) and on north's (where it does not), from every instance.
        let forged = Self.paymentResult(sp, number: north.number, fee: 800, subMchID: Self.southSubMchID)
        for index in world.servers.indices {
            #expect(await Self.post(world, "/notify/wechat/v2/m/south", forged, via: index) == "FAIL")
            #expect(await Self.post(world, "/notify/wechat/v2/m/north", forged, via: index) == "FAIL")
        }
        #expect(try await world.store.order(id: north.id)?.status == .pending)
        #expect(try await world.store.payments(orderID: north.id).allSatisfy { $0.status == .pending })
        #expect(try await Self.refusedForMerchant(world, north.id), "the refusal is in north's log")
        // The same message naming north, on north's path, is north's: paid.
        let genuine = Self.paymentResult(sp, number: north.number, fee: 800, subMchID: SandboxMode.subMerchantWeChatID)
        #expect(await Self.post(world, "/notify/wechat/v2/m/north", genuine) == "SUCCESS")
        #expect(try await world.store.order(id: north.id)?.status == .paid)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func aRefundResultIsThePathsMerchantsWhateverItsOuterFieldsSay(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.subMerchants.append(IdempotencyScopeTests.south) }
        let sp = try Self.serviceProvider(world)
        let north = try await Self.northPayment(world, amount: "20.00")
        try await world.pay("wechat", number: north.number)
        #expect(try await world.waitFor(north.id, .paid))
        let refunded = try await world.call("POST", "/v1/orders/\(north.id)/refunds", json: ["amount": "5.00"])
        try #require(refunded.status == 200, "\(refunded.object)")
        let refundNumber = try #require((refunded.object["refund"] as? [String: Any])?["out_refund_no"] as? String)
        func result(outer: String) throws -> [UInt8] {
            try Self.refundResult(sp, number: north.number, refundNumber: refundNumber, fee: 2000, refunded: 500, outerSubMchID: outer)
        }
        // North's genuine refund result with its unsigned sub_mch_id changed to south's, on south's
        // path; and unchanged, on south's path: south's path takes only south's payments' refunds.
        for index in world.servers.indices {
            #expect(await Self.post(world, "/notify/wechat/v2/m/south/refund", try result(outer: Self.southSubMchID), via: index) == "FAIL")
            #expect(
                await Self.post(world, "/notify/wechat/v2/m/south/refund", try result(outer: SandboxMode.subMerchantWeChatID), via: index)
                    == "FAIL")
        }
        #expect(try await Self.refusedForMerchant(world, north.id))
        // On north's path it is north's, whatever its outer field says: the unsigned field decides nothing.
        #expect(await Self.post(world, "/notify/wechat/v2/m/north/refund", try result(outer: Self.southSubMchID)) == "SUCCESS")
        #expect(try await eventually { try await world.store.refund(outRefundNo: refundNumber)?.confirmedAt != nil })
        #expect(try await world.store.order(id: north.id)?.refunded.minorUnits == 500)
        try await world.expectBooksAgreeThenStop()
    }

    /// WeChat Pay v3: every sub-merchant's notifications are encrypted with the service provider's
    /// APIv3 key and signed with WeChat's one platform key. One naming south, carrying north's trade
    /// number, posted to south's path, never pays north.
    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func southsV3ResultNeverPaysNorthsPayment(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.subMerchants.append(IdempotencyScopeTests.south) }
        let sp = try #require(world.mode.configuration.serviceProvider?.wechatV3)
        // Signed as WeChat signs: a platform key the server holds (registered here under an id of its own).
        let platformKey = TestKeys.rsa(2)
        sp.platformKeys.add(publicKey: platformKey.publicKey, id: "PUB_KEY_ID_0100000000000000000000000058")
        let created = try await world.call(
            "POST", "/v1/orders",
            json: ["items": [["label": "Latte", "amount": "8.00"]], "currency": "CNY", "description": "Latte", "merchant": "north"])
        let id = try #require(created.object["id"] as? String)
        let number = try #require(try await world.start(id, "wechat.native", api: "v3")["out_trade_no"] as? String)
        func notification(subMchID: String) throws -> (body: [UInt8], headers: [String: String]) {
            let transaction =
                #"{"sp_appid":"\#(sp.appID)","sp_mchid":"\#(sp.merchant.mchID)","sub_mchid":"\#(subMchID)","out_trade_no":"\#(number)","#
                + #""transaction_id":"4200000000202612070000003","trade_type":"NATIVE","trade_state":"SUCCESS","#
                + #""amount":{"total":800,"currency":"CNY"},"payer":{"sp_openid":"oForged"}}"#
            let nonce = "n0nce0n0nce0"
            let sealed = try AESGCMKey(Array(sp.merchant.apiV3Key.utf8)).seal(
                Array(transaction.utf8), iv: Array(nonce.utf8), authenticating: Array("transaction".utf8))
            let body = Array(
                (#"{"id":"EV-\#(subMchID)","create_time":"2026-12-07T12:00:00+08:00","event_type":"TRANSACTION.SUCCESS","#
                    + #""resource_type":"encrypt-resource","summary":"支付成功","resource":{"algorithm":"AEAD_AES_256_GCM","#
                    + #""ciphertext":"\#(Base64.encode(sealed.combined))","associated_data":"transaction","original_type":"transaction","#
                    + #""nonce":"\#(nonce)"}}"#).utf8)
            let timestamp = String(Int(Date().timeIntervalSince1970))
            let signature = try platformKey.signature(
                for: Array("\(timestamp)\nn0nce\n".utf8) + body + [0x0A], scheme: .insecurePKCS1v1_5SHA256)
            return (
                body,
                [
                    "Content-Type": "application/json", "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": "n0nce",
                    "Wechatpay-Signature": Base64.encode(signature), "Wechatpay-Serial": "PUB_KEY_ID_0100000000000000000000000058",
                ]
            )
        }
        let forged = try notification(subMchID: Self.southSubMchID)
        for server in world.servers {
            let answer = await server.respond(
                InProcess.request("POST", "/notify/wechat/v3/m/south", headers: forged.headers, body: forged.body))
            #expect(!(200..<300).contains(answer.status), "\(answer.status) \(answer.text)")
        }
        #expect(try await world.store.order(id: id)?.status == .pending)
        #expect(try await Self.refusedForMerchant(world, id))
        // The same, naming north, on north's path: paid.
        let genuine = try notification(subMchID: SandboxMode.subMerchantWeChatID)
        let paid = await world.servers[0].respond(
            InProcess.request("POST", "/notify/wechat/v3/m/north", headers: genuine.headers, body: genuine.body))
        #expect((200..<300).contains(paid.status), "\(paid.status) \(paid.text)")
        #expect(try await world.store.order(id: id)?.status == .paid)
        await world.stop()
    }
}

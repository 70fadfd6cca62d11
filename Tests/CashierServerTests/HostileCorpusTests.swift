import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

/// The hostile-input corpus (`Hostile/*.json`, written by scripts/test/make_hostile_corpus.py):
/// every case is sent to a real server over a socket — the merchant API and every notify
/// endpoint — and must get the answer it names, leave every existing order as it was, and echo
/// nothing secret.
@Suite struct HostileCorpusTests {
    struct Case: Decodable {
        let name: String
        let kind: String
        let expect: Expect
        let method: String?
        let path: String?
        let auth: String?
        let headers: [String: String?]?
        let body: Body?
        let body_base64: String?
        let raw: Body?
        let raw_base64: String?
        let set: [String: String?]?
        let sign: String?
        let sign_type: String?
        let tamper_after_sign: [String: String]?
        let duplicate: [String: String]?
        let body_override: String?
        let forge: Bool?
        let amount: String?
        let signed_at_offset: Double?
        let garbage: Bool?
        let empty: Bool?
        let application_data: String?
        let req_info: String?
        let other_merchant: Bool?
    }

    struct Expect: Decodable {
        let status: Int?
        let status_in: [Int]?
        let reply_contains: String?
        let reply: String?
        let reply_in: [String]?
        let authorized: Bool?
    }

    /// A body as text, or a large one as prefix + unit × times + suffix.
    enum Body: Decodable {
        case text(String)
        case repeated(prefix: String, unit: String, times: Int, suffix: String)

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .text(text)
                return
            }
            struct Repeat: Decodable {
                let prefix: String
                let unit: String
                let times: Int
                let suffix: String
            }
            let value = try Repeat(from: decoder)
            self = .repeated(prefix: value.prefix, unit: value.unit, times: value.times, suffix: value.suffix)
        }

        var bytes: Data {
            switch self {
            case .text(let text): Data(text.utf8)
            case .repeated(let prefix, let unit, let times, let suffix):
                Data((prefix + String(repeating: unit, count: times) + suffix).utf8)
            }
        }
    }

    static func corpus() throws -> [Case] {
        let folder = try #require(Bundle.module.url(forResource: "Hostile", withExtension: nil))
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter {
            $0.pathExtension == "json"
        }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }.map { try JSONDecoder().decode(Case.self, from: Data(contentsOf: $0)) }
    }

    @Test func everyHostileCaseIsRefusedClearlyAndChangesNothing() async throws {
        let cases = try Self.corpus()
        #expect(cases.count >= 200)
        let fixture = try await ServerFixture()
        // This test signs as the providers: Alipay's and WeChat v3's platform keys are its own here.
        let alipayPlatform = TestKeys.rsa(0)
        let wechatPlatform = TestKeys.rsa(1)
        let platformID = "PUB_KEY_ID_HOSTILE_TEST"
        var configuration = fixture.mode.configuration
        configuration.alipay?.alipayPublicKey = alipayPlatform.publicKey
        let v3Keys = WeChatPay.V3.PlatformKeys()
        v3Keys.add(publicKey: wechatPlatform.publicKey, id: platformID)
        configuration.wechatV3?.platformKeys = v3Keys
        configuration.queryInterval = .seconds(3600)
        // Apple Pay's processors' webhooks, with secrets of this test's own.
        let stripeSecret = "whsec_hostile_corpus_0123456789"
        let adyenKey = "5A1E0C3B9D7F2468ACE013579BDF2468ACE013579BDF2468ACE013579BDF2468"
        configuration.applePay?.stripeWebhookSecret = stripeSecret
        configuration.applePay?.adyenHMACKey = adyenKey
        let server = MerchantServer(configuration: configuration, store: fixture.store, audit: SecretsAudit.fromEnvironment())
        try await server.start()
        let base = server.baseURL.absoluteString
        let store = fixture.store

        // A paid order (notifications target it: paid through WeChat, and a second time through
        // Alipay, so both wallets know its number) and an unpaid one.
        let created = try await store.create(
            NewOrder(
                id: "ord_hostile_paid", outTradeNo: TradeNumber.generate(), total: Money(minorUnits: 5100, currency: .cny),
                description: "paid", clientSecret: "s1"))
        let wechatAttempt = try await store.beginPayment(
            NewPayment(orderID: created.id, method: .wechatNative, provider: .wechatV2), now: Date()
        ).payment
        let alipayAttempt = try await store.beginPayment(NewPayment(orderID: created.id, method: .alipayQR, provider: .alipay), now: Date())
            .payment
        for attempt in [wechatAttempt, alipayAttempt] {
            try await store.recordPayment(
                .succeeded(transactionID: nil, amount: attempt.amount), of: attempt.id, record: EventRecord(kind: .notification),
                now: Date())
        }
        let paid = try #require(try await store.order(id: created.id))
        let unpaid = try await store.create(
            NewOrder(
                id: "ord_hostile_unpaid", outTradeNo: TradeNumber.generate(), total: Money(minorUnits: 4600, currency: .cny),
                description: "unpaid", clientSecret: "s2"))
        let before = try await store.orders(status: nil, before: nil, limit: 1000)
        let secrets =
            [
                configuration.secretKey, fixture.wechatMerchant.apiKey, configuration.wechatV3?.merchant.apiV3Key ?? "",
                configuration.miniProgram?.secret ?? "", stripeSecret, adyenKey,
            ] + (configuration.alipay.map { [String($0.privateKey.pemRepresentation.split(separator: "\n")[2])] } ?? [])

        // What the processors' cases name: the paid order's trade number and id, and its WeChat payment.
        let names = ["{number}": paid.outTradeNo, "{order}": paid.id, "{payment}": wechatAttempt.id]
        var failures: [String] = []
        for item in cases {
            var headers = HTTPHeaders()
            var method = "POST"
            var path = ""
            var body = Data()
            switch item.kind {
            case "api":
                method = item.method ?? "GET"
                path = (item.path ?? "/").replacingOccurrences(of: "{order}", with: paid.id).replacingOccurrences(
                    of: "{unpaid}", with: unpaid.id)
                switch item.auth {
                case "secret": headers.add("Authorization", "Bearer \(configuration.secretKey)")
                case "publishable": headers.add("Authorization", "Bearer \(configuration.publishableKey)")
                case "wrong": headers.add("Authorization", "Bearer sk_wrong_\(UUID().uuidString)")
                default: break
                }
                headers.add("Content-Type", "application/json")
                body = item.body_base64.flatMap { Data(base64Encoded: $0) } ?? item.body?.bytes ?? Data()
            case "wechat_v2":
                path = "/notify/wechat/v2"
                body =
                    item.raw_base64.flatMap { Data(base64Encoded: $0) } ?? item.raw?.bytes
                    ?? Self.wechatV2(item, order: paid, merchant: fixture.wechatMerchant)
            case "wechat_v2_refund":
                path = "/notify/wechat/v2/refund"
                if let raw = item.raw?.bytes {
                    body = raw
                } else {
                    body = try Self.wechatV2Refund(item, order: paid, merchant: fixture.wechatMerchant)
                }
            case "alipay":
                path = "/notify/alipay"
                headers.add("Content-Type", "application/x-www-form-urlencoded")
                if let raw = item.raw_base64.flatMap({ Data(base64Encoded: $0) }) ?? item.raw?.bytes {
                    body = raw
                } else {
                    body = try Self.alipay(item, order: paid, configuration: configuration, key: alipayPlatform)
                }
            case "wechat_v3":
                path = "/notify/wechat/v3"
                (headers, body) = try Self.wechatV3(item, order: paid, configuration: configuration, key: wechatPlatform, id: platformID)
            case "stripe":
                path = "/notify/stripe"
                (headers, body) = try Self.stripe(item, names: names, secret: stripeSecret)
            case "adyen":
                path = "/notify/adyen"
                headers.add("Content-Type", "application/json")
                body = try item.raw?.bytes ?? Self.adyen(item, names: names, key: adyenKey)
            case "applepay":
                path = "/v1/orders/\(unpaid.id)/payments/applepay/authorize"
                headers.add("Authorization", "Bearer \(configuration.secretKey)")
                body = try await Self.applePay(item, order: unpaid, sandbox: fixture.sandbox)
            default:
                failures.append("\(item.name): unknown kind \(item.kind)")
                continue
            }
            let response: HTTPResponse
            do {
                response = try await ServerFixture.transport.send(
                    HTTPRequest(
                        method: method, url: URL(string: base + path) ?? URL(string: base + "/invalid")!, headers: headers, body: body,
                        timeout: .seconds(20)))
            } catch {
                failures.append("\(item.name): no answer (\(error))")
                continue
            }
            let text = String(decoding: response.body, as: UTF8.self)
            let expect = item.expect
            var problems: [String] = []
            if let status = expect.status, response.status != status { problems.append("status \(response.status), wanted \(status)") }
            if let statuses = expect.status_in, !statuses.contains(response.status) {
                problems.append("status \(response.status), wanted one of \(statuses)")
            }
            if let needle = expect.reply_contains, !text.contains(needle) { problems.append("reply \(text.prefix(120)) lacks \(needle)") }
            if let reply = expect.reply, text != reply { problems.append("reply \(text.prefix(120)), wanted \(reply)") }
            if let replies = expect.reply_in, response.status == 200, !replies.contains(text) {
                problems.append("reply \(text.prefix(120))")
            }
            if expect.authorized == false {
                let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
                if (object?["status"] as? Int) == 0 { problems.append("authorised") }
            }
            // A clear error: an API error names a code and a message.
            if item.kind == "api", response.status >= 400 {
                let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: [String: Any]]
                if (object?["error"]?["message"] as? String)?.isEmpty ?? true { problems.append("no error message: \(text.prefix(120))") }
            }
            for secret in secrets where !secret.isEmpty && text.contains(secret) { problems.append("echoed a secret") }
            if !problems.isEmpty { failures.append("\(item.name): " + problems.joined(separator: "; ")) }
        }
        // Nothing that existed moved: same status, same refunds, same version.
        for order in before {
            let now = try #require(try await store.order(id: order.id))
            if now.status != order.status || now.refunded != order.refunded || now.version != order.version {
                failures.append("order \(order.id) changed: \(order.status.rawValue) → \(now.status.rawValue)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(cases.count) cases failed:\n\(failures.joined(separator: "\n"))")
        await server.stop()
        await fixture.stop()
    }

    // MARK: Building the notifications

    /// `text` with the corpus's placeholders filled in.
    static func filled(_ text: String, _ names: [String: String]) -> String {
        names.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    /// A Stripe event and its `Stripe-Signature`, signed as the case says.
    static func stripe(_ item: Case, names: [String: String], secret: String) throws -> (HTTPHeaders, Data) {
        let body = Data(Self.filled(item.body.map { String(decoding: $0.bytes, as: UTF8.self) } ?? "", names).utf8)
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        let signature: String? =
            switch item.sign {
            case "valid": try ApplePay.StripeEvent.signatureHeader(for: body, secret: secret)
            case "wrong_secret": try ApplePay.StripeEvent.signatureHeader(for: body, secret: "whsec_not_the_endpoints_secret")
            case "v0_only": try ApplePay.StripeEvent.signatureHeader(for: body, secret: secret).replacingOccurrences(of: "v1=", with: "v0=")
            case "stale": try ApplePay.StripeEvent.signatureHeader(for: body, secret: secret, timestamp: Date().addingTimeInterval(-600))
            case "garbage": "not a signature"
            case "empty": ""
            default: nil
            }
        if let signature { headers.add("Stripe-Signature", signature) }
        return (headers, item.body_override.map { Data(Self.filled($0, names).utf8) } ?? body)
    }

    /// An Adyen webhook of one item built from the case's fields, signed as the case says, then tampered with.
    static func adyen(_ item: Case, names: [String: String], key: String) throws -> Data {
        let set = (item.set ?? [:]).compactMapValues { $0.map { Self.filled($0, names) } }
        let notification = ApplePay.AdyenNotification(
            eventCode: set["eventCode"] ?? "REFUND", success: set["success"] != "false", pspReference: set["pspReference"] ?? "",
            originalReference: set["originalReference"], merchantAccountCode: "CashierHostile",
            merchantReference: set["merchantReference"] ?? "",
            value: set["value"].flatMap { Int64($0) }, currency: set["currency"])
        let signingKey = item.sign == "wrong_key" ? String(key.reversed()) : key
        var object = try #require(notification.jsonObject(hmacKey: signingKey)["NotificationRequestItem"] as? [String: Any])
        var additional = object["additionalData"] as? [String: Any] ?? [:]
        switch item.sign {
        case "none": additional.removeValue(forKey: "hmacSignature")
        case "empty": additional["hmacSignature"] = ""
        default: break
        }
        object["additionalData"] = additional
        for (name, value) in item.tamper_after_sign ?? [:] {
            if name == "value" {
                object["amount"] = ["value": Int64(value) ?? 0, "currency": set["currency"] ?? "CNY"]
            } else {
                object[name] = value
            }
        }
        return try JSONSerialization.data(withJSONObject: ["live": "false", "notificationItems": [["NotificationRequestItem": object]]])
    }

    static func wechatV2(_ item: Case, order: StoredOrder, merchant: WeChatPay.V2.Merchant) -> Data {
        var fields: [(String, String)] = [
            ("appid", merchant.appID), ("mch_id", merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 16)),
            ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", order.outTradeNo), ("transaction_id", "4200000001"),
            ("total_fee", String(order.total.minorUnits)), ("fee_type", "CNY"), ("trade_type", "NATIVE"), ("openid", "o1"),
            ("time_end", "20261129120000"),
        ]
        for (name, value) in item.set ?? [:] {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        switch item.sign {
        case "valid": fields.append(("sign", merchant.signer.signature(for: fields, type: .md5)))
        case "wrong_key":
            let other = WeChatPay.V2.Merchant(appID: merchant.appID, mchID: merchant.mchID, apiKey: SecureRandom.alphanumeric(count: 32))
            fields.append(("sign", other.signer.signature(for: fields, type: .md5)))
        case "empty": fields.append(("sign", ""))
        default: break
        }
        for (name, value) in item.tamper_after_sign ?? [:] {
            fields = fields.map { $0.0 == name ? (name, value) : $0 }
        }
        for (name, value) in item.duplicate ?? [:] { fields.append((name, value)) }
        return Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
    }

    static func wechatV2Refund(_ item: Case, order: StoredOrder, merchant: WeChatPay.V2.Merchant) throws -> Data {
        var fields: [(String, String)] = [
            ("return_code", "SUCCESS"), ("appid", merchant.appID), ("mch_id", merchant.mchID),
            ("nonce_str", SecureRandom.alphanumeric(count: 16)),
        ]
        func encrypted(_ outTradeNo: String, key apiKey: String) throws -> String {
            let inner = WeChatPay.V2.XMLDocument(
                root: "root",
                [
                    ("out_refund_no", "R1"), ("out_trade_no", outTradeNo), ("refund_fee", "100"), ("refund_id", "50000001"),
                    ("refund_status", "SUCCESS"), ("total_fee", String(order.total.minorUnits)), ("transaction_id", "4200000001"),
                ])
            let key = Array(Hex.encode(DigestAlgorithm.insecureMD5.hash(apiKey)).utf8)
            return Base64.encode(try InsecureAESECB.encrypt(Array(inner.xmlString.utf8), key: key))
        }
        switch item.req_info ?? "valid" {
        case "absent": break
        case "valid": fields.append(("req_info", try encrypted(order.outTradeNo, key: merchant.apiKey)))
        case "other_key": fields.append(("req_info", try encrypted(order.outTradeNo, key: SecureRandom.alphanumeric(count: 32))))
        case "unknown_order": fields.append(("req_info", try encrypted("C20200101000000UNKNOWN0000", key: merchant.apiKey)))
        case let text: fields.append(("req_info", text))
        }
        for (name, value) in item.set ?? [:] {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        return Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
    }

    static func alipay(_ item: Case, order: StoredOrder, configuration: MerchantConfiguration, key: RSAPrivateKey) throws -> Data {
        var fields: [String: String] = [
            "app_id": configuration.alipay?.appID ?? "", "out_trade_no": order.outTradeNo, "trade_no": "2026112922001",
            "trade_status": "TRADE_SUCCESS",
            "total_amount": order.total.decimalString, "seller_id": configuration.alipay?.sellerID ?? "", "notify_id": "n1",
            "notify_time": "2026-11-29 12:00:00", "notify_type": "trade_status_sync", "charset": "utf-8", "version": "1.0",
            "sign_type": "RSA2",
        ]
        for (name, value) in item.set ?? [:] { fields[name] = value }
        if let type = item.sign_type { fields["sign_type"] = type }
        var unsigned = fields
        unsigned["sign"] = nil
        unsigned["sign_type"] = nil
        let content = Alipay.Signer.content(unsigned)
        switch item.sign {
        case "valid": fields["sign"] = Base64.encode(try key.signature(for: content, scheme: .insecurePKCS1v1_5SHA256))
        case "wrong_key":
            fields["sign"] = Base64.encode(
                try TestKeys.rsa(5).signature(for: content, scheme: .insecurePKCS1v1_5SHA256))
        case "empty": fields["sign"] = ""
        default: break
        }
        for (name, value) in item.tamper_after_sign ?? [:] { fields[name] = value }
        var pairs = fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for (name, value) in item.duplicate ?? [:] { pairs.append((name, value)) }
        return Data(Alipay.FormBody.encode(pairs).utf8)
    }

    static func wechatV3(_ item: Case, order: StoredOrder, configuration: MerchantConfiguration, key: RSAPrivateKey, id: String) throws
        -> (HTTPHeaders, Data)
    {
        let resource: [String: Any] = [
            "appid": configuration.wechatV3?.appID ?? "", "mchid": configuration.wechatV3?.merchant.mchID ?? "",
            "out_trade_no": order.outTradeNo,
            "transaction_id": "4200000002", "trade_state": "SUCCESS", "amount": ["total": order.total.minorUnits, "currency": "CNY"],
        ]
        let nonce = SecureRandom.alphanumeric(count: 12)
        let aes = try AESGCMKey(Array((configuration.wechatV3?.merchant.apiV3Key ?? "").utf8))
        let box = try aes.seal(
            try JSONSerialization.data(withJSONObject: resource), iv: Array(nonce.utf8), authenticating: Array("transaction".utf8))
        let envelope: [String: Any] = [
            "id": UUID().uuidString, "event_type": "TRANSACTION.SUCCESS", "resource_type": "encrypt-resource", "summary": "ok",
            "resource": [
                "algorithm": "AEAD_AES_256_GCM", "ciphertext": Base64.encode(box.combined), "nonce": nonce,
                "associated_data": "transaction", "original_type": "transaction",
            ],
        ]
        let signed = try JSONSerialization.data(withJSONObject: envelope)
        var timestamp = Int(Date().timeIntervalSince1970)
        switch item.headers?["Wechatpay-Timestamp"] ?? nil {
        case "old": timestamp -= 3600
        case "future": timestamp += 3600
        default: break
        }
        let headerNonce = SecureRandom.alphanumeric(count: 16)
        let signer = item.forge == true ? TestKeys.rsa(5) : key
        let signature = Base64.encode(
            try signer.signature(
                for: "\(timestamp)\n\(headerNonce)\n\(String(decoding: signed, as: UTF8.self))\n", scheme: .insecurePKCS1v1_5SHA256))
        var values: [String: String] = [
            "Wechatpay-Timestamp": String(timestamp), "Wechatpay-Nonce": headerNonce, "Wechatpay-Signature": signature,
            "Wechatpay-Serial": id,
            "Content-Type": "application/json",
        ]
        for (name, value) in item.headers ?? [:] where !["old", "future"].contains(value ?? "") { values[name] = value }
        var headers = HTTPHeaders()
        for (name, value) in values { headers.add(name, value) }
        return (headers, item.body_override.map { Data($0.utf8) } ?? signed)
    }

    static func applePay(_ item: Case, order: StoredOrder, sandbox: SandboxServer) async throws -> Data {
        if item.empty == true { return Data("{}".utf8) }
        if item.garbage == true {
            return Data(#"{"token":{"paymentData":{"version":"EC_v1","data":"AAAA","signature":"AAAA","header":{}}}}"#.utf8)
        }
        let amount = try item.amount.map { try Money(decimal: $0, currency: .cny) } ?? order.total
        let applicationData = try item.application_data.map { try Hex.decode($0) } ?? Array(order.id.utf8)
        if item.other_merchant == true {
            // A genuine token from the same (test) Apple CA, for another merchant's processing key.
            let other = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.someone-else")
            let token = try ApplePayTokenMinter(ca: sandbox.applePay.ca).mint(for: other, amount: amount, applicationData: applicationData)
            return try JSONSerialization.data(withJSONObject: [
                "token": ["paymentData": try JSONSerialization.jsonObject(with: JSONEncoder().encode(token))]
            ])
        }
        let token = try await sandbox.applePay.mintPayment(
            amount: amount, applicationData: applicationData, signedAt: Date().addingTimeInterval(item.signed_at_offset ?? 0))
        return try JSONSerialization.data(withJSONObject: ["token": try JSONSerialization.jsonObject(with: token)])
    }
}

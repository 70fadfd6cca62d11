import Cashier
import CashierSandbox
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// What an order tells the providers besides amount and number — the payer's address (through
/// trusted proxies), when it stops being payable, its metadata and its goods — as the sandboxes
/// received it.
@Suite struct ProviderOrderFieldsTests {
    @Test func trustedProxiesNameThePayer() throws {
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
        // From a trusted proxy: the rightmost hop that is not one (anything left of it the payer could have written).
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: "6.6.6.6, 203.0.113.9, 10.2.3.4") == "203.0.113.9")
        #expect(proxies.clientAddress(remote: "::ffff:127.0.0.1", forwardedFor: "2001:db8::7, fd12::1") == "2001:db8::7")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: "10.0.0.1, 10.0.0.2") == "10.0.0.1")
        // A hop that is no address: the header is not believed.
        #expect(proxies.clientAddress(remote: "127.0.0.1", forwardedFor: "203.0.113.9, unknown") == "127.0.0.1")
        // From anyone else the header is ignored.
        #expect(proxies.clientAddress(remote: "198.51.100.4", forwardedFor: "203.0.113.9") == "198.51.100.4")
        #expect(TrustedProxies().clientAddress(remote: "127.0.0.1", forwardedFor: "203.0.113.9") == "127.0.0.1")
        #expect(
            proxies.isTrusted("10.255.0.1") && !proxies.isTrusted("11.0.0.1") && proxies.isTrusted("fd99::1")
                && !proxies.isTrusted("fe80::1"))
        #expect(throws: RequestProblem.self) { try TrustedProxies(parsing: ["10.0.0.0/33"]) }
        #expect(throws: RequestProblem.self) { try TrustedProxies(parsing: ["example.com"]) }
    }

    @Test func theConfigurationFileReadsTrustedProxiesAndCounterTimes() throws {
        let (secret, publishable) = MerchantConfiguration.generateKeys()
        let root: [String: Any] = [
            "secret_key_env": "CASHIER_TEST_SECRET", "publishable_key": publishable, "public_base_url": "https://pay.example.com",
            "http": ["trusted_proxies": ["127.0.0.1", "10.0.0.0/8"]],
            "barcode": ["answer_within_seconds": 10, "give_up_after_seconds": 45, "query_interval_seconds": 2],
        ]
        let file = try ConfigurationFile(
            root, ConfigurationFile.Reader(folder: URL(fileURLWithPath: "/tmp"), environment: ["CASHIER_TEST_SECRET": secret]))
        #expect(file.configuration.trustedProxies.isTrusted("10.9.9.9"))
        #expect(file.configuration.barcode.answerWithin == 10 && file.configuration.barcode.giveUpAfter == 45)
        var wrong = root
        wrong["http"] = ["trusted_proxies": ["10.0.0.0/99"]]
        #expect(throws: ConfigurationFile.Problem.self) {
            try ConfigurationFile(
                wrong, ConfigurationFile.Reader(folder: URL(fileURLWithPath: "/tmp"), environment: ["CASHIER_TEST_SECRET": secret]))
        }
        wrong = root
        wrong["barcode"] = ["answer_within_seconds": 90, "give_up_after_seconds": 30]
        #expect(throws: ConfigurationFile.Problem.self) {
            try ConfigurationFile(
                wrong, ConfigurationFile.Reader(folder: URL(fileURLWithPath: "/tmp"), environment: ["CASHIER_TEST_SECRET": secret]))
        }
    }

    /// WeChat Pay v2 H5 orders name the merchant's mobile site in `scene_info` (WeChat requires it):
    /// `wechat.h5_site` when configured, this server's public address otherwise.
    @Test func h5OrdersNameTheSite() async throws {
        func placed(_ fixture: ServerFixture) async throws -> String? {
            let created = try await fixture.call(
                "POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "9.00"]], "currency": "CNY"])
            let (id, number) = (created.object["id"] as? String ?? "", created.object["out_trade_no"] as? String ?? "")
            let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.h5", "api": "v2"])
            #expect(started.status == 200, "\(started.object)")
            return await fixture.sandbox.wechatV2.ledger().first { $0.out_trade_no == number }?.sent["scene_info"]
        }
        let plain = try await ServerFixture(publicBaseURL: "https://pay.example.com")
        #expect(
            try await placed(plain) == #"{"h5_info":{"type":"Wap","wap_url":"https://pay.example.com","wap_name":"pay.example.com"}}"#)
        await plain.stop()
        let named = try await ServerFixture { $0.wechat?.h5Site = .init(url: "https://m.example.com", name: "Example 茶") }
        #expect(try await placed(named) == #"{"h5_info":{"type":"Wap","wap_url":"https://m.example.com","wap_name":"Example 茶"}}"#)
        await named.stop()

        // From the configuration file, each mistake named.
        let (secret, publishable) = MerchantConfiguration.generateKeys()
        func read(_ site: Any) throws -> String {
            let root: [String: Any] = [
                "secret_key_env": "S", "publishable_key": publishable, "public_base_url": "https://pay.example.com",
                "wechat": ["appid": "wx1", "mch_id": "1230000109", "api_key_env": "K", "h5_site": site],
            ]
            do {
                let file = try ConfigurationFile(
                    root,
                    ConfigurationFile.Reader(
                        folder: URL(fileURLWithPath: "/tmp"), environment: ["S": secret, "K": String(repeating: "k", count: 32)]))
                return file.configuration.wechat?.h5Site?.sceneInfo ?? "none"
            } catch let problem as ConfigurationFile.Problem {
                return problem.description
            }
        }
        let good = try read(["url": "https://m.example.com", "name": "M"])
        #expect(good.contains(#""wap_url":"https://m.example.com""#), "\(good)")
        #expect(try read(["url": "m.example.com", "name": "M"]).contains("wechat.h5_site.url"))
        #expect(try read(["url": "https://m.example.com"]).contains("wechat.h5_site.name"))
        #expect(try read("https://m.example.com").contains("wechat.h5_site: must be an object"))
    }

    @Test func theSandboxesSeeThePayersAddressExpiryMetadataAndGoods() async throws {
        let fixture = try await ServerFixture { $0.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.1"]) }
        func order(metadata: [String: String]) async throws -> (id: String, number: String) {
            let created = try await fixture.call(
                "POST", "/v1/orders",
                json: [
                    "items": [["label": "Latte", "amount": "28.00", "quantity": 2], ["label": "Coupon", "amount": "-6.00"]],
                    "currency": "CNY", "description": "Lattes", "expires_in": 900, "metadata": metadata,
                ])
            try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            return (created.object["id"] as? String ?? "", created.object["out_trade_no"] as? String ?? "")
        }
        let proxied = ["X-Forwarded-For": "6.6.6.6, 203.0.113.9"]
        let before = Date()

        // WeChat Pay v2 (native): spbill_create_ip, time_expire in Beijing time, attach, detail.
        let v2 = try await order(metadata: ["shop": "north"])
        #expect(
            try await fixture.call("POST", "/v1/orders/\(v2.id)/payments", headers: proxied, json: ["method": "wechat.native"]).status
                == 200)
        let v2Books = try #require(await fixture.sandbox.wechatV2.ledger().first { $0.out_trade_no == v2.number })
        #expect(v2Books.sent["spbill_create_ip"] == "203.0.113.9")
        #expect(v2Books.sent["attach"] == #"{"shop":"north"}"#)
        #expect(v2Books.sent["detail"] == #"{"goods_detail":[{"goods_id":"item-1","goods_name":"Latte","quantity":2,"price":2800}]}"#)
        let expiry = try #require(BeijingTime.formatter("yyyyMMddHHmmss").date(from: v2Books.sent["time_expire"] ?? ""))
        // 900 s after the order was made: between the instants around its creation (to the second).
        #expect(
            expiry >= before.addingTimeInterval(899) && expiry <= Date().addingTimeInterval(901),
            "time_expire \(expiry) for an order made after \(before)")

        // A client_ip the caller gives wins; metadata longer than attach takes stays on the order only.
        let long = try await order(metadata: ["note": String(repeating: "x", count: 200)])
        #expect(
            try await fixture.call(
                "POST", "/v1/orders/\(long.id)/payments", headers: proxied, json: ["method": "wechat.native", "client_ip": "192.0.2.44"]
            ).status == 200)
        let longBooks = try #require(await fixture.sandbox.wechatV2.ledger().first { $0.out_trade_no == long.number })
        #expect(longBooks.sent["spbill_create_ip"] == "192.0.2.44" && longBooks.sent["attach"] == nil)

        // WeChat Pay v3 (H5): scene_info.payer_client_ip, time_expire as RFC 3339 at +08:00, detail.
        let v3 = try await order(metadata: ["shop": "south"])
        #expect(
            try await fixture.call("POST", "/v1/orders/\(v3.id)/payments", headers: proxied, json: ["method": "wechat.h5", "api": "v3"])
                .status
                == 200)
        let v3Books = try #require(await fixture.sandbox.wechatV3.ledger().first { $0.out_trade_no == v3.number })
        #expect(v3Books.sent["payer_client_ip"] == "203.0.113.9" && v3Books.sent["attach"] == #"{"shop":"south"}"#)
        #expect(v3Books.sent["time_expire"]?.hasSuffix("+08:00") == true)
        #expect(v3Books.sent["detail"]?.contains(#""merchant_goods_id":"item-1""#) == true)

        // Alipay (QR): timeout_express in minutes, passback_params URL-encoded, goods_detail in yuan.
        let alipay = try await order(metadata: ["shop": "east"])
        #expect(try await fixture.call("POST", "/v1/orders/\(alipay.id)/payments", json: ["method": "alipay.qr"]).status == 200)
        let alipayBooks = try #require(await fixture.sandbox.alipay.ledger().first { $0.out_trade_no == alipay.number })
        #expect(alipayBooks.sent["timeout_express"] == "14m" || alipayBooks.sent["timeout_express"] == "15m")
        #expect(alipayBooks.sent["passback_params"] == "%7B%22shop%22%3A%22east%22%7D")
        #expect(alipayBooks.sent["goods_detail"] == #"[{"goods_id":"item-1","goods_name":"Latte","price":"28.00","quantity":2}]"#)

        // Alipay app pay names its product (QUICK_MSECURITY_PAY), as the documentation requires.
        let app = try await order(metadata: [:])
        let started = try await fixture.call("POST", "/v1/orders/\(app.id)/payments", json: ["method": "alipay.app"])
        let orderString = try #require(started.object["order_string"] as? String)
        #expect(await fixture.sandbox.alipay.payOrderString(orderString, outcome: .success)["resultStatus"] == "9000")
        let appBooks = try #require(await fixture.sandbox.alipay.ledger().first { $0.out_trade_no == app.number })
        #expect(appBooks.sent["product_code"] == "QUICK_MSECURITY_PAY")
        await fixture.stop()
    }
}

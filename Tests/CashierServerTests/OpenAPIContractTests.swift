import CashierServer
import Foundation
import TestSupport
import Testing

/// The merchant API against its OpenAPI document: the checked-in copy is what the server serves,
/// the document is valid OpenAPI 3.1, and Schemathesis — every phase, every check, with the secret
/// key and with the publishable key — finds nothing. What it found earlier is kept below as
/// regression cases.
@Suite(.serialized) struct OpenAPIContractTests {
    @Test func theCheckedInDocumentIsWhatTheServerServes() async throws {
        let fixture = try await ServerFixture()
        let served = try await fixture.call("GET", "/openapi.json", key: "")
        let checkedIn = try Data(contentsOf: packageRoot.appendingPathComponent("docs/openapi.json"))
        #expect(
            served.body == checkedIn,
            "docs/openapi.json differs from what the server serves: run `swift run cashier openapi > docs/openapi.json`")
        #expect(try MerchantServer.openAPIDocument() == checkedIn)
        // Sandbox mode adds its test helper, and only then.
        #expect(!String(decoding: checkedIn, as: UTF8.self).contains("/v1/test_helpers/"))
        #expect(String(decoding: try MerchantServer.openAPIDocument(sandbox: true), as: UTF8.self).contains("/v1/test_helpers/"))
        await fixture.stop()
    }

    @Test func everyOperationHasItsSchemasAndErrors() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: MerchantServer.openAPIDocument()) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        for (path, methods) in paths {
            for (method, operation) in methods {
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(method) \(path) has no 2xx answer")
                if path.hasPrefix("/v1/") {
                    #expect(responses["401"] != nil && responses["default"] != nil, "\(method) \(path) lacks its errors")
                }
                #expect(operation["operationId"] is String, "\(method) \(path)")
            }
        }
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let order = try #require(schemas["Order"]?["properties"] as? [String: [String: Any]])
        // From the type: the fields OrderJSON encodes, with the notes' enumerations.
        #expect(Set(order.keys).isSuperset(of: ["id", "status", "amount", "payments", "refunds", "checkout_url"]))
        #expect(order["status"]?["$ref"] as? String == "#/components/schemas/OrderStatus")
        #expect((schemas["OrderStatus"]?["enum"] as? [String])?.contains("paid") == true)
        let request = try #require(schemas["OrderRequest"])
        #expect((request["required"] as? [String]) == ["items"])
        #expect((document["webhooks"] as? [String: Any])?.keys.contains("order.paid") == true)
    }

    @Test(arguments: ["secret", "publishable"])
    func schemathesisFindsNothing(key: String) async throws {
        // Schemathesis is another process: on sockets.
        let fixture = try await ServerFixture(
            webhook: .init(url: URL(string: "http://127.0.0.1:9/hooks")!, secret: "whsec_st"), sandboxHelpers: true, listening: true)
        let reports = Scratch.url("schemathesis-\(key)-\(UUID().uuidString)")
        let seconds = ProcessInfo.processInfo.environment["CASHIER_SCHEMATHESIS_SECONDS"] ?? "40"
        let result = try await runSubprocess(
            packageRoot.appendingPathComponent("scripts/test/schemathesis").path,
            [
                fixture.server.baseURL.absoluteString.trimmingCharacters(in: ["/"]),
                key == "secret" ? fixture.keys.secret : fixture.keys.publishable,
                seconds, reports.path,
            ])
        let summary = result.stdout.components(separatedBy: "SUMMARY").last ?? result.stdout
        #expect(
            result.status == 0, "Schemathesis (\(key) key) found problems:\n\(result.stdout.suffix(30000))\n\(result.stderr.suffix(2000))")
        #expect(summary.contains("Stateful") && summary.contains("passed"), "\(summary)")
        await fixture.stop()
    }

    // MARK: What Schemathesis found, kept

    @Test func anApplePayTokenThatIsNotAnObjectIsRefusedNotACrash() async throws {
        // {"token": "x"} reached JSONSerialization.data(withJSONObject:), which traps on a bare string.
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "5.00")
        for token: Any in ["x", 5, [1, 2], NSNull()] {
            let answer = try await fixture.call("POST", "/v1/orders/\(id)/payments/applepay/authorize", json: ["token": token])
            #expect(answer.status == 400, "\(token): \(answer.status)")
        }
        #expect(try await fixture.call("GET", "/healthz").status == 200)
        await fixture.stop()
    }

    @Test func aListAskedWithHundredsOfParametersIsAnswered() async throws {
        // `GET /v1/refunds?to=…&limit=…&limit=…` with a few hundred `limit`s (10 KB) had the
        // connection reset without an answer: libmicrohttpd ran out of header memory parsing them.
        // (Its limit, over a socket.)
        let fixture = try await ServerFixture(listening: true)
        let query = (0..<300).map { "limit=\($0)" }.joined(separator: "&")
        let answer = try await fixture.call("GET", "/v1/refunds?to=2070-10-11&" + query)
        #expect(answer.status == 400)
        #expect((answer.object["error"] as? [String: Any])?["code"] as? String == "too_many_query_parameters")
        #expect(try await fixture.call("GET", "/v1/refunds?limit=5").status == 200)
        await fixture.stop()
    }

    @Test func anEscapedHashOrQuestionMarkStaysInThePath() async throws {
        // `POST /v1/orders/B%23/close` was cut at the decoded `#` and reached `/v1/orders/B` (405).
        let fixture = try await ServerFixture()
        for id in ["B%23", "B%3Fx=1"] {
            let answer = try await fixture.call("POST", "/v1/orders/\(id)/close")
            #expect(answer.status == 404, "\(id): \(answer.status)")
        }
        await fixture.stop()
    }

    @Test func textsPastTheirLimitAreRefusedAndTheDefaultDescriptionFits() async throws {
        // A 129-character description was accepted (201): the document's maxLength was not held, and
        // WeChat Pay would refuse the order's body at payment time.
        let fixture = try await ServerFixture()
        func order(description: String?, labels: [String] = ["Latte"]) async throws -> (status: Int, object: [String: Any]) {
            var body: [String: Any] = ["items": labels.map { ["label": $0, "amount": "1.00"] }, "currency": "CNY"]
            body["description"] = description
            let answer = try await fixture.call("POST", "/v1/orders", json: body)
            return (answer.status, answer.object)
        }
        let tooLong = try await order(description: String(repeating: "0", count: 129))
        #expect(tooLong.status == 422 && "\(tooLong.object)".contains("description"), "\(tooLong)")
        // 43 characters, 129 bytes: within the document's count, past WeChat Pay's bytes.
        #expect(try await order(description: String(repeating: "咖", count: 43)).status == 422)
        #expect(try await order(description: String(repeating: "咖", count: 42)).status == 201)
        #expect(try await order(description: String(repeating: "0", count: 128)).status == 201)
        let label = try await order(description: nil, labels: [String(repeating: "L", count: 129)])
        #expect(label.status == 422 && "\(label.object)".contains("items[0].label"), "\(label)")
        // Without a description the items name the order, cut to 128 bytes on a character boundary.
        let named = try await order(description: nil, labels: Array(repeating: String(repeating: "咖", count: 42), count: 3))
        let description = try #require(named.object["description"] as? String)
        #expect(named.status == 201 && description.utf8.count <= 128 && description.utf8.count > 120 && description.hasPrefix("咖"))
        // A refund's reason: WeChat Pay's 80 bytes, named.
        let id = try #require(try await order(description: "Tea").object["id"] as? String)
        let reason = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", json: ["amount": "1.00", "reason": String(repeating: "r", count: 81)])
        #expect(reason.status == 422 && "\(reason.object)".contains("reason"), "\(reason.status) \(reason.object)")
        let fine = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "1.00", "reason": "cold"])
        #expect(fine.status != 422 && !"\(fine.object)".contains("UTF-8 bytes"), "\(fine.status) \(fine.object)")
        await fixture.stop()
    }

    @Test func rulesOfTheKeyOrTheConfigurationAreNot400() async throws {
        // An order in SYP (the document allows any ISO 4217 code), then a WeChat Pay payment: the
        // provider takes CNY only. The one schema-valid 400 kept on purpose (the money-safety
        // contract; scripts/test/schemathesis.toml accepts it from this operation only).
        let fixture = try await ServerFixture()
        let created = try await fixture.call(
            "POST", "/v1/orders", json: ["items": [["label": "Tea", "amount_minor": 500]], "currency": "SYP"])
        let id = try #require(created.object["id"] as? String, "\(created.object)")
        let payment = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        #expect(payment.status == 400 && "\(payment.object)".contains("CNY"), "\(payment.status) \(payment.object)")
        #expect(try await fixture.store.payments(orderID: id).isEmpty)
        await fixture.stop()
        // Prices from the publishable key (shipping on catalog items) are refused as a matter of the key: 403.
        let catalog = try Catalog(json: Data(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"12.75"}}}"#.utf8))
        let shop = try await ServerFixture(catalog: catalog) { $0.applePay = nil }
        let shipping = [["identifier": "x", "label": "Courier", "amount": "1.00"]]
        let priced = try await shop.call(
            "POST", "/v1/orders", key: shop.keys.publishable, json: ["items": [["sku": "latte"]], "shipping_methods": shipping])
        #expect(priced.status == 403 && "\(priced.object)".contains("shipping_methods"), "\(priced.status) \(priced.object)")
        let plain = try await shop.call("POST", "/v1/orders", key: shop.keys.publishable, json: ["items": [["sku": "latte"]]])
        #expect(plain.status == 201, "\(plain.status) \(plain.object)")
        // What this server's configuration lacks (here Apple Pay) is not the request's fault either: 422.
        let session = try await shop.call(
            "POST", "/v1/applepay/sessions", json: ["validation_url": "https://apple-pay-gateway.apple.com/paymentservices/startSession"])
        #expect(session.status == 422 && "\(session.object)".contains("applepay.web"), "\(session.status) \(session.object)")
        let order = try #require(plain.object["id"] as? String)
        let authorize = try await shop.call("POST", "/v1/orders/\(order)/payments/applepay/authorize", json: ["token": [:]])
        #expect(authorize.status == 422 && "\(authorize.object)".contains("not configured"), "\(authorize.status) \(authorize.object)")
        await shop.stop()
    }

    @Test func optionalBodiesMayBeEmptyAndRulesAnswer422() async throws {
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "5.00")
        // capture and void take an empty body (all optional fields): an order with nothing to capture is 409, not 400.
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/void").status == 409)
        // Schema-valid, refused by a rule across fields: 422, never 400.
        #expect(try await fixture.call("GET", "/v1/payments?from=2026-12-02&to=2026-12-01").status == 422)
        // A range open on one side is a range: from a day on, or up to one.
        #expect(try await fixture.call("GET", "/v1/payments?from=2026-12-01").status == 200)
        #expect(try await fixture.call("GET", "/v1/payments?to=2026-12-01").status == 200)
        #expect(try await fixture.call("GET", "/v1/payments?from=2026-02-30&to=2026-03-01").status == 400)
        let refund = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "0"])
        #expect(refund.status == 422)
        // The document's shapes, held by the server too: an Idempotency-Key of printable ASCII, a
        // client_ip that is an address (WeChat Pay's refusal of "g\u{12}" came back as a 502).
        let key = try await fixture.call(
            "POST", "/v1/orders", headers: ["Idempotency-Key": "ключ"],
            json: ["items": [["label": "Tea", "amount": "1.00"]], "currency": "CNY"])
        #expect(key.status == 400)
        let ip = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native", "client_ip": "g\u{12}"])
        #expect(ip.status == 400 && "\(ip.object)".contains("client_ip"))
        // Without credentials the stream says 401, whether or not the order exists.
        #expect(try await fixture.call("GET", "/v1/orders/\(id)/stream?client_secret=wrong", key: "").status == 401)
        #expect(try await fixture.call("GET", "/v1/orders/ord_nothing/stream?client_secret=wrong", key: "").status == 401)
        #expect(try await fixture.call("GET", "/v1/orders/ord_nothing/stream").status == 404)
        await fixture.stop()
    }

    /// Schemathesis seed 31337: `{"method":"applepay","auth_code":">Ðnø0…"}` was answered 200,
    /// because only the barcode methods read `auth_code`. A field the method does not read is
    /// still held to the document's shape, and a refusal starts nothing.
    @Test func aFieldTheMethodDoesNotReadIsStillHeldToTheDocument() async throws {
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "5.00")
        for (body, field) in [
            (["method": "applepay", "auth_code": ">Ðnø0\u{17}u칼%Î"], "auth_code"),
            (["method": "wechat.native", "auth_code": "13456789012345"], "auth_code"),
            (["method": "alipay.page", "auth_code": ""], "auth_code"),
            (["method": "alipay.page", "api": "v4"], "api"),
            (["method": "applepay", "api": "V3"], "api"),
            (["method": "wechat.native", "api": "v1"], "api"),
            (["method": "applepay", "client_ip": "10.0.0.300"], "client_ip"),
        ] {
            let answer = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: body)
            let error = answer.object["error"] as? [String: Any]
            #expect(answer.status == 400 && (error?["message"] as? String)?.contains(field) == true, "\(body): \(answer.object)")
        }
        let order = try await fixture.call("GET", "/v1/orders/\(id)").object
        #expect((order["payments"] as? [[String: Any]] ?? []).isEmpty && order["status"] as? String == "created", "\(order)")
        // Well-formed, they are what they were: an auth_code the method does not read is left
        // unread, an api with a method that is not WeChat Pay's is a rule's 422.
        let applePay = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", json: ["method": "applepay", "auth_code": "134567890123450000"])
        #expect(applePay.status == 200, "\(applePay.object)")
        let alipay = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "alipay.page", "api": "v2"])
        #expect(alipay.status == 422 && "\(alipay.object)".contains("WeChat Pay methods only"), "\(alipay.object)")
        await fixture.stop()
    }
}

/// A client generated from the document by a maintained generator (openapi-python-client) runs
/// the money flow against a sandbox server: what a merchant in another language would do.
@Suite struct GeneratedClientTests {
    @Test func aGeneratedPythonClientTakesAnOrderFromCreationToRefund() async throws {
        let fixture = try await ServerFixture(sandboxHelpers: true, listening: true)  // the client is another process
        let work = Scratch.url("generated-client-\(UUID().uuidString)")
        let result = try await runSubprocess(
            packageRoot.appendingPathComponent("scripts/test/generated_client").path,
            [fixture.server.baseURL.absoluteString.trimmingCharacters(in: ["/"]), fixture.keys.secret, work.path])
        #expect(result.status == 0 && result.stdout.contains(" 0 failed"), "\(result.stdout)\n\(result.stderr.suffix(3000))")
        #expect(result.stdout.contains("14 passed"), "\(result.stdout)")
        try? FileManager.default.removeItem(at: work)
        await fixture.stop()
    }
}

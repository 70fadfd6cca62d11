import Cashier
import CashierCurl
import CashierHTTP
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// A field a request body's type does not read (or a query parameter an endpoint does not take)
/// is refused with a 400 that names it and the one probably meant, and nothing happens — where it used to be ignored: a refund of
/// `{"amout": "1.00"}` refunded the whole payment.
@Suite struct RequestFieldsTests {
    static func message(_ answer: (status: Int, object: [String: Any], body: Data)) -> String {
        (answer.object["error"] as? [String: Any])?["message"] as? String ?? "\(answer.object)"
    }

    @Test func aMisspeltFieldIsRefusedAndChangesNothing() async throws {
        let fixture = try await ServerFixture()
        let paid = try await RecordsAndExportsTests.paid(fixture, "12.75", "wechat.native")
        let id = try #require(paid["id"] as? String)
        // The refund that used to take all 12.75.
        let typo = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amout": "1.00"])
        #expect(typo.status == 400 && Self.message(typo) == "amout is not a field of this request: did you mean amount?")
        let order = try await fixture.call("GET", "/v1/orders/\(id)")
        #expect(order.object["status"] as? String == "paid" && (order.object["refunds"] as? [Any])?.isEmpty == true)
        #expect(try await fixture.store.refunds(orderID: id).isEmpty)

        let orders = try await fixture.store.orders(status: nil, before: nil, limit: 100).count
        let refusals: [(String, String, [String: Any], String)] = [
            (
                "POST", "/v1/orders", ["items": [["label": "Latte", "amount": "1.00"]], "currency": "CNY", "descripton": "x"],
                "descripton is not a field of this request: did you mean description?"
            ),
            (
                "POST", "/v1/orders", ["itmes": [["label": "Latte", "amount": "1.00"]], "currency": "CNY"],
                "itmes is not a field of this request: did you mean items?"
            ),
            (
                "POST", "/v1/orders", ["items": [["label": "Latte", "amount": "1.00", "qty": 2]], "currency": "CNY"],
                "items[0].qty is not a field of this request: it takes amount, amount_minor, label, quantity, sku, type"
            ),
            (
                "POST", "/v1/orders/\(id)/payments", ["method": "wechat.native", "API": "v3"],
                "API is not a field of this request: did you mean api?"
            ),
            ("POST", "/v1/orders/\(id)/void", ["paymnet": "pay_x"], "paymnet is not a field of this request: did you mean payment?"),
            ("POST", "/v1/orders/\(id)/capture", ["amount": "1.00", "captured": true], "captured is not a field of this request"),
        ]
        for (method, path, body, expected) in refusals {
            let answer = try await fixture.call(method, path, json: body)
            #expect(answer.status == 400 && Self.message(answer).hasPrefix(expected), "\(path): \(Self.message(answer))")
        }
        #expect(try await fixture.store.orders(status: nil, before: nil, limit: 100).count == orders)
        #expect(try await fixture.store.payments(orderID: id).count == 1)
        await fixture.stop()
    }

    /// A field given twice is refused: Foundation's decoder would read the first, most other
    /// parsers (the merchant's checks, a proxy's) the last, so the body means two amounts.
    @Test func aFieldGivenTwiceIsRefused() async throws {
        let fixture = try await ServerFixture()
        let paid = try await RecordsAndExportsTests.paid(fixture, "12.75", "wechat.native")
        let id = try #require(paid["id"] as? String)
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(fixture.keys.secret)")
        headers.add("Content-Type", "application/json")
        let twice = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/v1/orders/\(id)/refunds")!, headers: headers,
                body: Data(#"{"amount":"1.00","reason":"x","amount":"12.75"}"#.utf8)))
        #expect(twice.status == 400 && String(decoding: twice.body, as: UTF8.self).contains("amount is given more than once: give it once"))
        #expect(try await fixture.store.refunds(orderID: id).isEmpty)
        await fixture.stop()
    }

    /// A field name as long as the body allows is refused like any other, quoted short.
    @Test func aHugeFieldNameIsQuotedShort() async throws {
        let fixture = try await ServerFixture()
        let key = String(repeating: "k", count: 200_000)
        let answer = try await fixture.call(
            "POST", "/v1/orders", json: ["items": [["label": "Latte", "amount": "1.00"]], "currency": "CNY", key: 1])
        #expect(
            answer.status == 400 && Self.message(answer).hasPrefix(String(repeating: "k", count: 64) + "… is not a field of this request"))
        #expect(answer.body.count < 400)
        await fixture.stop()
    }

    /// A query parameter the endpoint does not take is refused likewise: a misspelt filter would
    /// answer the whole list (every payment, where only those owed a refund were asked for).
    @Test func aMisspeltQueryParameterIsRefused() async throws {
        let fixture = try await ServerFixture()
        _ = try await RecordsAndExportsTests.paid(fixture, "2.00", "wechat.native")
        let typo = try await fixture.call("GET", "/v1/payments?refund_requred=true")
        #expect(
            typo.status == 400
                && Self.message(typo) == "refund_requred is not a parameter of GET /v1/payments: did you mean refund_required?")
        #expect(typo.object["data"] == nil)
        let right = try await fixture.call("GET", "/v1/payments?refund_required=true")
        #expect(right.status == 200 && (right.object["data"] as? [Any])?.isEmpty == true)
        #expect(try await fixture.call("GET", "/v1/orders?statuss=paid").status == 400)
        #expect(try await fixture.call("GET", "/v1/orders?status=paid&limit=5").status == 200)
        await fixture.stop()
    }

    /// Requests at once, half of them with a misspelt field (and the first use of each type's
    /// fields among them): every misspelt one is refused, every other one makes its order.
    @Test func requestsAtOnceAreEachCheckedOnTheirOwn() async throws {
        let fixture = try await ServerFixture()
        let before = try await fixture.store.orders(status: nil, before: nil, limit: 100).count
        let answers = try await withThrowingTaskGroup(of: (Bool, Int).self) { group in
            for index in 0..<32 {
                group.addTask {
                    let misspelt = index % 2 == 1
                    var body: [String: Any] = ["items": [["label": "Latte", "amount": "1.\(10 + index)"]], "currency": "CNY"]
                    body[misspelt ? "metdata" : "metadata"] = ["n": "\(index)"]
                    return (misspelt, try await fixture.call("POST", "/v1/orders", json: body).status)
                }
            }
            return try await group.reduce(into: [(Bool, Int)]()) { $0.append($1) }
        }
        #expect(answers.filter { $0.0 }.allSatisfy { $0.1 == 400 } && answers.filter { !$0.0 }.allSatisfy { $0.1 == 201 })
        let made = try await fixture.store.orders(status: nil, before: nil, limit: 100)
        #expect(made.count - before == 16)
        // The even ones were made: 1.10, 1.12, … 1.40.
        let expected: Int64 = (0..<16).reduce(0) { sum, step in sum + 110 + 2 * Int64(step) }
        let total: Int64 = made.prefix(16).reduce(0) { $0 + $1.total.minorUnits }
        #expect(total == expected)
        await fixture.stop()
    }

    /// What is free stays free: `metadata`'s keys, an Apple Pay token's and contact's fields (passed
    /// on whole), and every field the document lists for each request.
    @Test func mapsAndPassedOnObjectsTakeAnyKey() async throws {
        let fixture = try await ServerFixture()
        let created = try await fixture.call(
            "POST", "/v1/orders",
            json: [
                "items": [["label": "Latte", "amount": "1.00", "quantity": 1]], "currency": "CNY",
                "metadata": ["anything": "goes", "cart": "8812"],
            ])
        #expect(created.status == 201, "\(Self.message(created))")
        let id = try #require(created.object["id"] as? String)
        let authorize = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize",
            json: [
                "token": ["paymentData": ["version": "EC_v1", "whatever": 1]],
                "billing_contact": ["givenName": "Ann", "phoneticName": "x"],
            ])
        #expect(!Self.message(authorize).contains("is not a field"), "\(Self.message(authorize))")
        let update = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments/applepay/update",
            json: ["shipping_contact": ["countryCode": "CN", "postalCode": "200000", "subLocality": "Xuhui", "country": "China"]])
        #expect(!Self.message(update).contains("is not a field"), "\(Self.message(update))")
        await fixture.stop()
    }

    /// The fields read from each request type are the document's: every JSON request body the
    /// OpenAPI document shows refuses other fields (`additionalProperties: false`), and an example
    /// with every documented property is not refused as unknown, while one more field is.
    @Test func everyDocumentedFieldIsKnownAndNoOther() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: MerchantServer.openAPIDocument()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let types: [String: any Decodable.Type] = [
            "ApplePayAuthorization": ApplePayAuthorizeBody.self, "ApplePaySheetUpdate": SheetUpdateBody.self,
            "ApplePaySessionRequest": SessionBody.self, "OrderRequest": OrderRequest.self,
            "CaptureRequest": CaptureBody.self, "PaymentRequest": PaymentRequestBody.self,
            "RefundRequest": RefundBody.self, "WebhookResendRequest": WebhookRangeBody.self,
            "ComplaintImageBody": ComplaintImageBody.self, "ComplaintReplyBody": ComplaintReplyBody.self,
            "ComplaintRefundBody": ComplaintRefundBody.self, "TransferBody": TransferBody.self,
            "SplitBody": SplitBody.self, "SplitFinishBody": SplitFinishBody.self, "SplitReturnBody": SplitReturnBody.self,
            "ReceiverBody": ReceiverBody.self, "AgreementBody": AgreementBody.self, "SubscriptionBody": SubscriptionBody.self,
            "EndBody": EndBody.self, "AgreementAuthorizeBody": AgreementAuthorizeBody.self,
        ]
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        let documented = Set(
            paths.filter { $0.key.hasPrefix("/v1/") }.values.flatMap(\.values).compactMap { operation -> String? in
                let body = (operation["requestBody"] as? [String: Any])?["content"] as? [String: [String: Any]]
                return (body?["application/json"]?["schema"] as? [String: Any])?["$ref"].flatMap {
                    ($0 as? String)?.split(separator: "/").last.map(String.init)
                }
            })
        #expect(documented == Set(types.keys), "request bodies without a type here: \(documented.subtracting(types.keys))")
        for (name, type) in types {
            let properties = try #require(schemas[name]?["properties"] as? [String: Any], "\(name)")
            #expect(schemas[name]?["additionalProperties"] as? Bool == false, "\(name)")
            let fields = try RequestFields.of(type)
            let example = properties.mapValues { _ in JSONReader.Value.string("x") }
            #expect(
                fields.unknownField(in: .object(example)) == nil,
                "\(name): \(String(describing: fields.unknownField(in: .object(example))))")
            let extra = JSONReader.Value.object(example.merging(["zzz_unknown": .number("1")]) { $1 })
            #expect(fields.unknownField(in: extra)?.hasPrefix("zzz_unknown is not a field") == true)
        }
        #expect(schemas["ApplePayRedactedContact"]?["additionalProperties"] as? Bool == true)
    }
}

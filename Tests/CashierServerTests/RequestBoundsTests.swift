import Cashier
import CashierServer
import Foundation
import TestSupport
import Testing

/// Every number the merchant API reads, driven with extreme values — 0, −1, Int64.max, 1e300,
/// NaN and 9×10¹⁸ (finding 6: `"expires_in": 9000000000000000000` once stopped the server) —
/// through every endpoint that takes one, with the secret key and, where the catalog allows it,
/// the publishable key: each is answered (never a 5xx), an out-of-range value gets a 400 that
/// names the field, the server stays up, and nothing that existed changes.
@Suite struct RequestBoundsTests {
    /// The extreme values, as JSON text.
    static let extremes = ["0", "-1", "9223372036854775807", "1e300", "\"NaN\"", "9000000000000000000", "-9223372036854775808", "0.5"]

    struct Case: CustomStringConvertible {
        let method: String
        let path: String
        let body: String?
        let publishable: Bool
        /// Answers that are right for this value (a valid one may create something).
        let allowed: Set<Int>
        /// The field a refusal must name (one of these: a zero or negative price is refused as the
        /// order's total).
        let field: String
        var alternatives: [String] = []
        var description: String { "\(method) \(path) \(body ?? "")" }
    }

    @Test func extremeNumbersAreRefusedClearlyAndChangeNothing() async throws {
        let catalog = try Catalog(json: Data(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"12.75"}}}"#.utf8))
        let fixture = try await ServerFixture(catalog: catalog)
        // A paid order to refund, and its state to compare afterwards.
        let order = try await fixture.createOrder(amount: "30.00")
        let id = try #require(order["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        let before = try await fixture.store.orders(status: nil, before: nil, limit: 100)

        var cases: [Case] = []
        for value in Self.extremes {
            let item = #"{"label":"Tea","amount":"1.00"}"#
            cases += [
                Case(
                    method: "POST", path: "/v1/orders", body: #"{"items":[{"label":"Tea","amount_minor":\#(value)}],"currency":"CNY"}"#,
                    publishable: false, allowed: [400, 422], field: "amount_minor", alternatives: ["total"]),
                Case(
                    method: "POST", path: "/v1/orders",
                    body: #"{"items":[{"label":"Tea","amount":"1.00","quantity":\#(value)}],"currency":"CNY"}"#, publishable: false,
                    allowed: [400, 422], field: "quantity"),
                Case(
                    method: "POST", path: "/v1/orders", body: #"{"items":[\#(item)],"currency":"CNY","expires_in":\#(value)}"#,
                    publishable: false, allowed: [400, 422], field: "expires_in"),
                Case(
                    method: "POST", path: "/v1/orders", body: #"{"items":[{"sku":"latte","quantity":\#(value)}]}"#, publishable: true,
                    allowed: [400, 422], field: "quantity"),
                Case(
                    method: "POST", path: "/v1/orders", body: #"{"items":[{"sku":"latte"}],"expires_in":\#(value)}"#, publishable: true,
                    allowed: [400, 422], field: "expires_in"),
                Case(
                    method: "POST", path: "/v1/orders/\(id)/refunds", body: #"{"amount_minor":\#(value)}"#, publishable: false,
                    allowed: [400, 422], field: "amount_minor"),
                Case(
                    method: "GET", path: "/v1/orders?limit=\(value.replacingOccurrences(of: "\"", with: ""))", body: nil,
                    publishable: false,
                    allowed: [400, 422], field: "limit"),
            ]
            // Amounts as decimal text: the same values spelt as decimals (0.5 is a fine amount there).
            let text = value.replacingOccurrences(of: "\"", with: "")
            guard text != "0.5" else { continue }
            cases += [
                Case(
                    method: "POST", path: "/v1/orders", body: #"{"items":[{"label":"Tea","amount":"\#(text)"}],"currency":"CNY"}"#,
                    publishable: false, allowed: [400, 422], field: "amount", alternatives: ["total"]),
                Case(
                    method: "POST", path: "/v1/orders/\(id)/refunds", body: #"{"amount":"\#(text)"}"#, publishable: false,
                    allowed: [400, 422],
                    field: "amount"),
            ]
        }
        // Sums and products that overflow though each number fits.
        cases += [
            Case(
                method: "POST", path: "/v1/orders",
                body:
                    #"{"items":[{"label":"A","amount_minor":1000000000000},{"label":"B","amount_minor":1000000000000}],"currency":"CNY"}"#,
                publishable: false, allowed: [400, 422], field: "total"),
            Case(
                method: "POST", path: "/v1/orders",
                body: #"{"items":[{"label":"A","amount_minor":1000000000000,"quantity":100000}],"currency":"CNY"}"#, publishable: false,
                allowed: [400, 422], field: "total"),
            Case(
                method: "GET", path: "/v1/reconciliations/99999-01-01", body: nil, publishable: false, allowed: [400, 422], field: "date"),
        ]

        var failures: [String] = []
        for item in cases {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(item.publishable ? fixture.keys.publishable : fixture.keys.secret)")
            headers.add("Content-Type", "application/json")
            let response = try await ServerFixture.transport.send(
                HTTPRequest(
                    method: item.method, url: URL(string: fixture.server.baseURL.absoluteString + item.path)!, headers: headers,
                    body: Data((item.body ?? "").utf8)))
            let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
            let message = (object?["error"] as? [String: Any])?["message"] as? String ?? ""
            if !item.allowed.contains(response.status) {
                failures.append("\(item): \(response.status) \(String(decoding: response.body, as: UTF8.self).prefix(160))")
            } else if !([item.field] + item.alternatives).contains(where: message.contains) {
                failures.append("\(item): the refusal does not name \(item.field): \(message)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(cases.count):\n\(failures.joined(separator: "\n"))")
        // Still up, and nothing moved.
        #expect(try await fixture.call("GET", "/healthz", key: "").status == 200)
        let after = try await fixture.store.orders(status: nil, before: nil, limit: 100)
        #expect(after.map(\.id) == before.map(\.id) && after.map(\.version) == before.map(\.version))
        #expect(try await fixture.store.refunds(orderID: id).isEmpty)
        // The sane values still work: the bounds are bounds, not a ban.
        let valid = try await fixture.call(
            "POST", "/v1/orders",
            json: ["items": [["label": "Tea", "amount_minor": 100, "quantity": 3]], "currency": "CNY", "expires_in": 2_592_000])
        #expect(valid.status == 201)
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount_minor": 1]).status == 200)
        await fixture.stop()
    }
}

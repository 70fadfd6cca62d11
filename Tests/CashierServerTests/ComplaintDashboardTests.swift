import Cashier
import CashierCrypto
import CashierCurl
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// The dashboard's complaints: the inbox by deadline with the time left, a complaint's page with
/// the payer's words and image, the answer form with an image (multipart, its CSRF token among
/// the parts), the refund approved from the page, and a missed deadline flagged on the overview
/// once the server's clock passes it.
@Suite struct ComplaintDashboardTests {
    static let png = ComplaintTests.png

    static func paid(_ fixture: ServerFixture, _ amount: String) async throws -> (id: String, number: String) {
        let id = try await fixture.createOrderID(amount: amount)
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native", "api": "v3"])
        let number = try #require(started.object["out_trade_no"] as? String, "\(started.object)")
        #expect(await fixture.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success) == "SUCCESS")
        #expect(try await fixture.waitForStatus(id, "paid"))
        return (id, number)
    }

    static func page(_ url: String, cookie: String) async throws -> String {
        String(decoding: try await RecordsAndExportsTests.get(url, cookie: cookie).body, as: UTF8.self)
    }

    static func csrf(_ html: String) throws -> String {
        let marker = #"name="csrf" value=""#
        let start = try #require(html.range(of: marker)).upperBound
        return String(html[start...].prefix { $0 != "\"" })
    }

    static func post(_ url: String, cookie: String, type: String, body: [UInt8]) async throws -> HTTPResponse {
        try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: url)!, headers: ["Cookie": cookie, "Content-Type": type], body: Data(body),
                timeout: ServerFixture.patience))
    }

    @Test(.timeLimit(.minutes(3))) func theInboxThePageTheAnswerWithAnImageTheRefundAndAnOverdueFlag() async throws {
        let clock = ManualClock(sleeps: .manual)
        let fixture = try await ServerFixture(clock: clock)
        let base = fixture.server.baseURL.absoluteString
        let order = try await Self.paid(fixture, "26.00")
        let providerID = try await fixture.sandbox.wechatV3.raiseComplaint(
            .init(
                outTradeNo: order.number, detail: "少了一杯", problemType: "REFUND", problemDescription: "申请退款",
                applyRefundAmount: 1000, images: [Self.png]))
        var id = ""
        #expect(
            try await eventually {
                let list = try await fixture.call("GET", "/v1/complaints").object["data"] as? [[String: Any]] ?? []
                id = list.first { $0["provider_complaint_id"] as? String == providerID }?["id"] as? String ?? ""
                return !id.isEmpty
            })
        var cookie = try await RecordsAndExportsTests.signIn(base, secret: fixture.keys.secret)
        let inbox = try await Self.page(base + "/dashboard/complaints", cookie: cookie)
        #expect(inbox.contains(#"data-id="\#(id)""#) && inbox.contains("to answer") && inbox.contains("申请退款"))
        let page = try await Self.page(base + "/dashboard/complaints/\(id)", cookie: cookie)
        #expect(page.contains("少了一杯") && page.contains(#"id="reply-form""#) && page.contains(#"id="approve-form""#))
        #expect(page.contains("/dashboard/complaints/\(id)/images/0"))
        let image = try await RecordsAndExportsTests.get(base + "/dashboard/complaints/\(id)/images/0", cookie: cookie)
        #expect(image.status == 200 && Array(image.body) == Self.png && image.headers["Content-Type"] == "image/png")

        // The answer with an image: a multipart form, its CSRF token one of its parts.
        var form = MultipartFormData()
        form.append(name: "csrf", body: Array(try Self.csrf(page).utf8))
        form.append(name: "text", body: Array("已为您补发并退款".utf8))
        form.append(name: "images", filename: "receipt.png", contentType: "image/png", body: Self.png)
        form.append(name: "link_url", body: [])
        let reply = try await Self.post(
            base + "/dashboard/complaints/\(id)/reply", cookie: cookie, type: form.contentType, body: form.encoded())
        #expect(reply.status == 303 && reply.headers["Location"]?.contains("Answered%2C%20with%201%20image") == true, "\(reply.headers)")
        var forged = MultipartFormData()
        forged.append(name: "text", body: Array("forged".utf8))
        let refused = try await Self.post(
            base + "/dashboard/complaints/\(id)/reply", cookie: cookie, type: forged.contentType, body: forged.encoded())
        #expect(refused.status == 403)
        let answered = try await Self.page(base + "/dashboard/complaints/\(id)", cookie: cookie)
        #expect(answered.contains(#"id="state">processing<"#) && answered.contains("已为您补发并退款"))

        // The refund asked for, approved from the page: the ordinary refund of the payment.
        let approve = try await Self.post(
            base + "/dashboard/complaints/\(id)/refund", cookie: cookie, type: "application/x-www-form-urlencoded",
            body: Array("csrf=\(try Self.csrf(answered))&decision=approve&amount=10.00".utf8))
        #expect(approve.status == 303 && approve.headers["Location"]?.contains("Refunded") == true, "\(approve.headers)")
        #expect(try await fixture.store.order(id: order.id)?.refunded.minorUnits == 1000)
        let refunded = try await Self.page(base + "/dashboard/complaints/\(id)", cookie: cookie)
        #expect(refunded.contains(#"id="decision">approved<"#) && refunded.contains(#"id="state">processed<"#))

        // Another complaint, left unanswered past its 24 hours: flagged on the overview and in the inbox.
        let other = try await Self.paid(fixture, "8.00")
        let late = try await fixture.sandbox.wechatV3.raiseComplaint(.init(outTradeNo: other.number, detail: "没有小票"))
        #expect(
            try await eventually {
                (try await fixture.call("GET", "/v1/complaints?state=pending").object["data"] as? [[String: Any]] ?? []).contains {
                    $0["provider_complaint_id"] as? String == late
                }
            })
        let before = try await Self.page(base + "/dashboard", cookie: cookie)
        #expect(before.contains(#"id="complaints-open">1<"#) && before.contains(">0 past a deadline<"))
        clock.advance(by: 25 * 3600)
        #expect(try await fixture.server.reconcileComplaints() >= 1)
        #expect(try await fixture.server.reconcileComplaints() == 0)  // announced once
        await fixture.server.settled()
        cookie = try await RecordsAndExportsTests.signIn(base, secret: fixture.keys.secret)
        let overview = try await Self.page(base + "/dashboard", cookie: cookie)
        #expect(overview.contains(#"<div class="card tile flagged" id="complaints-tile">"#) && overview.contains(">1 past a deadline<"))
        let overdue = try await Self.page(base + "/dashboard/complaints", cookie: cookie)
        #expect(overdue.contains("overdue by "))
        let listed = (try await fixture.call("GET", "/v1/complaints?state=pending").object["data"] as? [[String: Any]] ?? []).first
        #expect(listed?["overdue"] as? Bool == true)
        await fixture.stop()
    }

    @Test func aMerchantsOwnKeySeesOnlyItsComplaintsAndBadRequestsAreRefused() async throws {
        let fixture = try await ServerFixture()
        let order = try await Self.paid(fixture, "12.00")
        let providerID = try await fixture.sandbox.wechatV3.raiseComplaint(.init(outTradeNo: order.number, detail: "x"))
        var id = ""
        #expect(
            try await eventually {
                let list = try await fixture.call("GET", "/v1/complaints").object["data"] as? [[String: Any]] ?? []
                id = list.first { $0["provider_complaint_id"] as? String == providerID }?["id"] as? String ?? ""
                return !id.isEmpty
            })
        let (merchantKey, record) = MerchantServer.makeSecretKey(label: "north", merchant: "north")
        try await fixture.store.createAPIKey(record)
        #expect(try await fixture.call("GET", "/v1/complaints/\(id)", key: merchantKey).status == 404)
        #expect((try await fixture.call("GET", "/v1/complaints", key: merchantKey).object["data"] as? [Any])?.isEmpty == true)
        #expect(try await fixture.call("GET", "/v1/complaints", key: fixture.keys.publishable).status == 401)
        #expect(try await fixture.call("GET", "/v1/complaints/cmp_nope").status == 404)
        #expect(try await fixture.call("GET", "/v1/complaints?state=bogus").status == 400)
        #expect(try await fixture.call("GET", "/v1/complaints/\(id)/images/9").status == 404)
        let problems: [[String: Any]] = [
            ["text": ""], ["text": String(repeating: "a", count: 201)], ["text": "ok", "images": ["1", "2", "3", "4", "5"]],
            ["text": "ok", "link_url": "http://shop.example.com", "link_text": "t"],
            ["text": "ok", "link_url": "https://shop.example.com"],
        ]
        for body in problems {
            #expect(try await fixture.call("POST", "/v1/complaints/\(id)/responses", json: body).status == 422, "\(body)")
        }
        #expect(try await fixture.call("POST", "/v1/complaints/\(id)/responses", json: ["txt": "typo"]).status == 400)
        // Not a refund complaint: no refund decision here (the order's refund is the way).
        #expect(try await fixture.call("POST", "/v1/complaints/\(id)/refund", json: ["decision": "approve"]).status == 422)
        let notImage = try await fixture.call(
            "POST", "/v1/complaints/\(id)/images", json: ["filename": "a.png", "data": Base64.encode(Array("GIF89a".utf8))])
        #expect(notImage.status == 422, "\(String(decoding: notImage.body, as: UTF8.self))")
        await fixture.stop()
    }
}

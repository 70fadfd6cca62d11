import Cashier
import CashierCurl
import CashierHTTP
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// What the dashboard's pages stand on, through the API: payments and refunds across orders with
/// filters and search, CSV exports that read back as the records, and webhook deliveries sent
/// again once the merchant's endpoint is back — each operator action in the order's log.
@Suite struct RecordsAndExportsTests {
    typealias Fixture = ServerFixture

    /// `YYYY-MM-DD` of `date` in the merchant's time zone (Asia/Shanghai unless configured).
    static func day(_ date: Date, _ timeZone: TimeZone = TimeZone(identifier: "Asia/Shanghai")!, plus days: Int = 0) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let shifted = calendar.date(byAdding: .day, value: days, to: date)!
        let parts = calendar.dateComponents([.year, .month, .day], from: shifted)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// An order of `amount` paid by `method` in the sandbox.
    static func paid(_ fixture: Fixture, _ amount: String, _ method: String, description: String = "Latte") async throws -> [String: Any] {
        let created = try await fixture.call(
            "POST", "/v1/orders", json: ["items": [["label": "Latte", "amount": amount]], "currency": "CNY", "description": description])
        let id = try #require(created.object["id"] as? String)
        let outTradeNo = try #require(created.object["out_trade_no"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": method])
        if method.hasPrefix("wechat") {
            await fixture.sandbox.wechatV2.pay(outTradeNo: outTradeNo, outcome: .success)
        } else {
            await fixture.sandbox.alipay.pay(outTradeNo: outTradeNo, outcome: .success)
        }
        try #require(try await fixture.waitForStatus(id, "paid"))
        return created.object
    }

    /// The rows of an export, or why it is not one.
    static func export(_ fixture: Fixture, _ file: String, from: String, to: String, key: String? = nil) async throws -> (
        status: Int, rows: [[String]], body: Data
    ) {
        let answer = try await fixture.call("GET", "/v1/exports/\(file)?from=\(from)&to=\(to)", key: key)
        return (answer.status, CSVRows.parse(String(decoding: answer.body, as: UTF8.self)) ?? [], answer.body)
    }

    /// A dashboard session's cookie (`cashier_session=…`), signed in with the secret key.
    static func signIn(_ base: String, secret: String) async throws -> String {
        let login = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: base + "/dashboard/login")!,
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("secret_key=\(secret)".utf8),
                timeout: ServerFixture.patience))
        return try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
    }

    static func get(_ url: String, cookie: String) async throws -> HTTPResponse {
        try await ServerFixture.transport.send(
            HTTPRequest(method: "GET", url: URL(string: url)!, headers: ["Cookie": cookie], timeout: ServerFixture.patience))
    }

    @Test func theOverviewPageShowsTheStoresFiguresAndAChart() async throws {
        let fixture = try await Fixture()
        let base = fixture.server.baseURL.absoluteString
        let cookie = try await Self.signIn(base, secret: fixture.keys.secret)
        let empty = String(decoding: try await Self.get(base + "/dashboard", cookie: cookie).body, as: UTF8.self)
        #expect(empty.contains(#"id="overview""#) && empty.contains(#"id="chart-empty""#) && empty.contains(#"id="orders-count">0<"#))
        let first = try await Self.paid(fixture, "12.00", "wechat.native")
        _ = try await Self.paid(fixture, "5.00", "alipay.qr")
        _ = try await fixture.createOrder(amount: "1.00")
        _ = try await fixture.call("POST", "/v1/orders/\(first["id"] as? String ?? "")/refunds", json: ["amount": "2.50"])
        for period in ["today", "7d", "30d"] {
            let html = String(decoding: try await Self.get(base + "/dashboard?period=\(period)", cookie: cookie).body, as: UTF8.self)
            #expect(html.contains(#"id="gross-CNY">¥17.00<"#) && html.contains(#"id="refunds-CNY">¥2.50<"#), "\(period)")
            #expect(html.contains(#"id="net-CNY">¥14.50<"#) && html.contains(#"id="orders-count">3<"#))
            #expect(html.contains(#"id="success-rate">100%<"#) && html.contains("2 of 2 payments started"))
            // The chart: server-drawn SVG, one bar per hour or day, adding up to the gross; no script.
            let amounts = html.components(separatedBy: #"data-amount=""#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
            #expect(html.contains(#"<svg id="chart""#) && amounts.reduce(0, +) == 1700 && amounts.filter { $0 > 0 }.count <= 2)
            #expect(amounts.count == (period == "today" ? 24 : period == "7d" ? 7 : 30), "\(period): \(amounts.count) bars")
            #expect(!html.contains("<script") && html.contains(#"<title id="chart-title">Volume (CNY)"#))
        }
        let today = String(decoding: try await Self.get(base + "/dashboard", cookie: cookie).body, as: UTF8.self)
        #expect(today.contains(">00:00<") && today.contains(">22:00<") && !today.contains(">24:00<"))
        #expect(today.contains("<td>wechat.native</td><td>wechat.v2</td><td>1</td>"))
        // The dashboard's download is the API's file.
        let day = Self.day(Date())
        let fromDashboard = try await Self.get(base + "/dashboard/export/orders.csv?from=\(day)&to=\(day)", cookie: cookie)
        #expect(fromDashboard.headers["Content-Disposition"] == "attachment; filename=\"orders-\(day)-to-\(day).csv\"")
        #expect(fromDashboard.body == (try await Self.export(fixture, "orders.csv", from: day, to: day)).body)
        #expect(try await Self.get(base + "/dashboard/export/orders.csv?from=\(day)&to=\(day)", cookie: "cashier_session=x").status == 303)
        await fixture.stop()
    }

    @Test func exportsReadBackAsTheOrdersPaymentsAndRefunds() async throws {
        let fixture = try await Fixture()
        let today = Self.day(Date())
        // Text a spreadsheet must keep as text: Chinese, a comma, quotes, a line break, a formula.
        let awkward = "拿铁, \"大杯\"\n=HYPERLINK(\"x\")"
        let first = try await Self.paid(fixture, "12.00", "wechat.native", description: awkward)
        let second = try await Self.paid(fixture, "8.80", "alipay.qr")
        let unpaid = try await fixture.createOrder(amount: "3.00")
        let firstID = try #require(first["id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(firstID)/refunds", json: ["amount": "4.00", "reason": "少一杯"]).status == 200)

        let orders = try await Self.export(fixture, "orders.csv", from: today, to: today)
        #expect(orders.status == 200 && orders.body.starts(with: [0xEF, 0xBB, 0xBF]))
        #expect(String(decoding: orders.body, as: UTF8.self).contains("\r\n"))
        let header = try #require(orders.rows.first)
        #expect(header.prefix(4) == ["id", "out_trade_no", "created", "status"])
        func column(_ name: String, _ row: [String]) -> String? { header.firstIndex(of: name).map { row[$0] } }
        // Oldest first, one row per order, as the API shows them.
        let listed = try #require(try await fixture.call("GET", "/v1/orders?limit=10").object["data"] as? [[String: Any]])
        #expect(orders.rows.dropFirst().map { column("id", $0) } == listed.reversed().map { $0["id"] as? String })
        for (row, order) in zip(orders.rows.dropFirst(), listed.reversed()) {
            let amount = order["amount"] as? [String: Any]
            #expect(column("out_trade_no", row) == order["out_trade_no"] as? String)
            #expect(column("status", row) == order["status"] as? String)
            #expect(column("amount", row) == amount?["amount"] as? String && column("currency", row) == "CNY")
        }
        let firstRow = try #require(orders.rows.first { column("id", $0) == firstID })
        #expect(column("description", firstRow) == "拿铁, \"大杯\"\n'=HYPERLINK(\"x\")".replacingOccurrences(of: "\n'", with: "\n"))
        #expect(column("amount_refunded", firstRow) == "4.00" && column("status", firstRow) == "partially_refunded")
        #expect(orders.rows.contains { column("id", $0) == unpaid["id"] as? String && column("status", $0) == "created" })

        let payments = try await Self.export(fixture, "payments.csv", from: today, to: today)
        let paymentHeader = try #require(payments.rows.first)
        let listedPayments = try #require(try await fixture.call("GET", "/v1/payments?limit=10").object["data"] as? [[String: Any]])
        #expect(payments.rows.count == 3 && listedPayments.count == 2)
        for (row, payment) in zip(payments.rows.dropFirst(), listedPayments.reversed()) {
            let fields = Dictionary(uniqueKeysWithValues: zip(paymentHeader, row))
            #expect(fields["id"] == payment["id"] as? String && fields["transaction_id"] == payment["transaction_id"] as? String)
            #expect(fields["method"] == payment["method"] as? String && fields["status"] == "succeeded")
            #expect(fields["amount"] == (payment["amount"] as? [String: Any])?["amount"] as? String)
        }
        #expect(payments.rows.dropFirst().map { $0[paymentHeader.firstIndex(of: "order_id")!] } == [firstID, second["id"] as? String])

        let refunds = try await Self.export(fixture, "refunds.csv", from: today, to: today)
        let refundHeader = try #require(refunds.rows.first)
        #expect(refunds.rows.count == 2)
        let refund = Dictionary(uniqueKeysWithValues: zip(refundHeader, refunds.rows.last ?? []))
        #expect(refund["order_id"] == firstID && refund["amount"] == "4.00" && refund["reason"] == "少一杯" && refund["requested_by"] == "api")

        // Another day: the header alone. Wrong dates, keys and files: a clear refusal.
        let tomorrow = Self.day(Date(), plus: 1)
        #expect(try await Self.export(fixture, "orders.csv", from: tomorrow, to: tomorrow).rows == [header])
        let backwards = try await fixture.call("GET", "/v1/exports/orders.csv?from=\(tomorrow)&to=\(today)")
        // Schema-valid days refused by a rule across them: 422; a day that is no day: 400.
        #expect(backwards.status == 422 && "\(backwards.object)".contains("before"))
        let impossible = try await fixture.call("GET", "/v1/exports/orders.csv?from=2026-02-30&to=2026-03-01")
        #expect(impossible.status == 400 && "\(impossible.object)".contains("2026-02-30"))
        // A range open on one side, or longer than a year, is a range: the document says so and the
        // server streams it (an export never holds its rows in memory).
        let openEnded = try await fixture.call("GET", "/v1/exports/orders.csv?from=\(today)")
        #expect(openEnded.status == 200 && CSVRows.parse(String(decoding: openEnded.body, as: UTF8.self))?.first == header)
        #expect(try await fixture.call("GET", "/v1/exports/orders.csv?from=2025-01-01&to=2026-12-31").status == 200)
        #expect(try await fixture.call("GET", "/v1/exports/secrets.csv?from=\(today)&to=\(today)").status == 404)
        #expect(try await Self.export(fixture, "orders.csv", from: today, to: today, key: fixture.keys.publishable).status == 401)
        await fixture.stop()
    }

    @Test func paymentsAndRefundsAreFilteredAndFound() async throws {
        let fixture = try await Fixture()
        let wechat = try await Self.paid(fixture, "5.00", "wechat.native")
        let alipay = try await Self.paid(fixture, "6.00", "alipay.qr")
        let wechatID = try #require(wechat["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(wechatID)/refunds", json: ["amount": "1.00"])
        func list(_ path: String) async throws -> [[String: Any]] {
            let answer = try await fixture.call("GET", path)
            try #require(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            return answer.object["data"] as? [[String: Any]] ?? []
        }
        let byAlipay = try await list("/v1/payments?provider=alipay")
        #expect(byAlipay.map { $0["order_id"] as? String } == [alipay["id"] as? String])
        #expect(try await list("/v1/payments?method=wechat.native").map { $0["order_id"] as? String } == [wechatID])
        #expect(try await list("/v1/payments?status=failed").isEmpty)
        let transaction = try #require(byAlipay.first?["transaction_id"] as? String)
        #expect(try await list("/v1/payments?q=\(transaction)").map { $0["order_id"] as? String } == [alipay["id"] as? String])
        #expect(try await list("/v1/payments?q=\(wechat["out_trade_no"] as? String ?? "")").count == 1)
        let today = Self.day(Date())
        #expect(try await list("/v1/payments?from=\(today)&to=\(today)").count == 2)
        #expect(try await list("/v1/payments?from=\(Self.day(Date(), plus: -3))&to=\(Self.day(Date(), plus: -1))").isEmpty)
        // Pages: one at a time, newest first.
        let page = try await fixture.call("GET", "/v1/payments?limit=1")
        #expect(page.object["has_more"] as? Bool == true)
        let older = try await list(
            "/v1/payments?limit=1&starting_after=\((page.object["data"] as? [[String: Any]])?.first?["id"] as? String ?? "")")
        #expect(older.map { $0["order_id"] as? String } == [wechatID])

        let refunds = try await list("/v1/refunds?method=wechat.native")
        let refund = try #require(refunds.first)
        #expect(refunds.count == 1 && refund["requested_by"] as? String == "api" && refund["order_id"] as? String == wechatID)
        #expect(try await list("/v1/refunds?q=\(refund["out_refund_no"] as? String ?? "")").count == 1)
        #expect(try await list("/v1/refunds?provider=alipay").isEmpty)
        // A payer who paid twice: the second payment is listed as waiting for its refund, until it has it.
        #expect(try await list("/v1/payments?refund_required=true").isEmpty)
        let twice = try await fixture.createOrder(amount: "4.40")
        let twiceID = try #require(twice["id"] as? String)
        let stale = try await fixture.call("POST", "/v1/orders/\(twiceID)/payments", json: ["method": "alipay.app"])
        _ = try await fixture.call("POST", "/v1/orders/\(twiceID)/payments", json: ["method": "wechat.native"])
        await fixture.sandbox.wechatV2.pay(outTradeNo: twice["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(twiceID, "paid"))
        _ = await fixture.sandbox.alipay.payOrderString(stale.object["order_string"] as? String ?? "", outcome: .success)
        await fixture.settled()
        #expect(try await list("/v1/payments?refund_required=true").count == 1)
        let owed = try #require(try await list("/v1/payments?refund_required=true").first)
        #expect(owed["method"] as? String == "alipay.app" && owed["order_id"] as? String == twiceID)
        _ = try await fixture.call("POST", "/v1/orders/\(twiceID)/refunds", json: ["payment": owed["id"] as? String ?? ""])
        #expect(try await list("/v1/payments?refund_required=true").isEmpty)
        #expect(try await fixture.call("GET", "/v1/payments?refund_required=maybe").status == 400)
        // Unknown values are named with what is allowed; the app's key reads none of it.
        let wrong = try await fixture.call("GET", "/v1/payments?provider=paypal")
        #expect(wrong.status == 400 && "\(wrong.object)".contains("wechat.v2"))
        #expect(try await fixture.call("GET", "/v1/refunds?status=paid").status == 400)
        #expect(try await fixture.call("GET", "/v1/payments?limit=0").status == 400)
        #expect(try await fixture.call("GET", "/v1/payments", key: fixture.keys.publishable).status == 401)
        await fixture.stop()
    }

    /// A page after an id that names no record is a 404 naming `starting_after`, in each list and
    /// in the dashboard's pages, never an empty page (which a client reads as the end of the list).
    @Test func anUnknownCursorIsRefusedNotAnEmptyPage() async throws {
        let receiver = try ServerFixture.receiver(failures: 0)
        let fixture = try await Fixture(webhook: .init(url: receiver.url, secret: "whsec_cursor"))
        let paid = try await Self.paid(fixture, "2.00", "wechat.native")
        let orderID = try #require(paid["id"] as? String)
        func first(_ list: String) async throws -> Any? {
            (try await fixture.call("GET", list).object["data"] as? [[String: Any]])?.first?["id"]
        }
        await fixture.settled()
        #expect(try await first("/v1/webhooks") != nil)
        let known: [String: Any?] = [
            "/v1/orders": orderID, "/v1/payments": try await first("/v1/payments"), "/v1/webhooks": try await first("/v1/webhooks"),
        ]
        for (list, id) in known {
            let after = try await fixture.call("GET", "\(list)?starting_after=\(try #require(id as? String))")
            #expect(after.status == 200 && (after.object["data"] as? [Any])?.isEmpty == true, "\(list): \(after.object)")
            for unknown in ["nope_1", orderID + "x"] {
                let refused = try await fixture.call("GET", "\(list)?starting_after=\(unknown)")
                let error = refused.object["error"] as? [String: Any]
                #expect(refused.status == 404 && error?["code"] as? String == "not_found", "\(list): \(refused.object)")
                #expect((error?["message"] as? String)?.contains("starting_after") == true, "\(list): \(refused.object)")
                #expect((error?["message"] as? String)?.contains("'\(unknown)'") == true, "\(list): \(refused.object)")
            }
        }
        #expect(try await fixture.call("GET", "/v1/refunds?starting_after=ref_nope").status == 404)
        #expect(try await fixture.call("GET", "/v1/orders?status=paid&starting_after=\(orderID)").status == 200)
        // The dashboard's "older" links carry the cursor as `after`: an edited one is a 404 page.
        let base = fixture.server.baseURL.absoluteString
        let cookie = try await Self.signIn(base, secret: fixture.keys.secret)
        for page in ["orders", "payments", "refunds", "webhooks"] {
            let answer = try await Self.get(base + "/dashboard/\(page)?after=nope_1", cookie: cookie)
            #expect(answer.status == 404 && String(decoding: answer.body, as: UTF8.self).contains("nope_1"), "\(page)")
            #expect(try await Self.get(base + "/dashboard/\(page)", cookie: cookie).status == 200, "\(page)")
        }
        await fixture.stop()
        await receiver.server.stop()
    }

    @Test func webhooksAreSentAgainOnceTheEndpointIsBack() async throws {
        let receiver = try ServerFixture.receiver(failures: 0, down: true)
        let clock = ManualClock(Date())
        let fixture = try await Fixture(webhook: .init(url: receiver.url, secret: "whsec_replay"), clock: clock)
        let first = try await Self.paid(fixture, "2.00", "wechat.native")
        let second = try await Self.paid(fixture, "3.00", "alipay.qr")
        // Down: each tried once, failed with the reason, not due again for a while (the clock
        // stands still: settled, nothing more is sent).
        await fixture.settled()
        #expect(receiver.received.count == 2)
        func deliveries(_ query: String) async throws -> [[String: Any]] {
            try await fixture.call("GET", "/v1/webhooks\(query)").object["data"] as? [[String: Any]] ?? []
        }
        #expect(try await deliveries("?state=failed").count == 2)
        let failed = try await deliveries("?state=failed")
        #expect(failed.allSatisfy { $0["attempts"] as? Int == 1 && $0["last_error"] as? String == "HTTP 503" })
        let firstDelivery = try #require(failed.first { $0["order_id"] as? String == first["id"] as? String })
        let eventID = try #require(firstDelivery["id"] as? String)
        await fixture.settled()
        #expect(receiver.received.count == 2)

        // Back, two seconds later (the retry is due after five): one re-sent by id — the same
        // event id, a fresh signature.
        receiver.isDown = false
        clock.advance(by: 2)
        let resent = try await fixture.call("POST", "/v1/webhooks/\(eventID)/resend")
        #expect(resent.status == 200 && resent.object["id"] as? String == eventID)
        await fixture.settled()
        #expect(receiver.received.count == 3)
        let again = try #require(receiver.received.last)
        let original = try #require(receiver.received.first { $0.eventID == eventID })
        #expect(again.eventID == eventID && again.body == original.body && again.signature != original.signature)
        #expect(WebhookSignature.verify(header: again.signature, body: again.body, secret: "whsec_replay", now: clock.now()))
        #expect(try await deliveries("?state=delivered").map { $0["id"] as? String } == [eventID])

        // The rest of the day's failures in one call; then nothing is left failed.
        let today = Self.day(clock.now())
        let all = try await fixture.call("POST", "/v1/webhooks/resend", json: ["from": today, "to": today])
        #expect(all.status == 200 && all.object["resent"] as? Int == 1)
        await fixture.settled()
        #expect(receiver.received.count == 4)
        #expect(receiver.received.last?.body == receiver.received.first { $0.eventID != eventID }?.body)
        #expect(try await deliveries("?state=failed").isEmpty)
        #expect(try await deliveries("?order_id=\(second["id"] as? String ?? "")").first?["state"] as? String == "delivered")
        // Who re-sent it is in the order's log.
        let events = try await fixture.store.events(orderID: first["id"] as? String ?? "")
        #expect(events.contains { $0.kind == .webhookResent && $0.detail.contains(#""by":"api""#) && $0.detail.contains(eventID) })

        // Refused clearly: an unknown delivery, a bad range, the app's key.
        #expect(try await fixture.call("POST", "/v1/webhooks/evt_nope/resend").status == 404)
        #expect(try await fixture.call("POST", "/v1/webhooks/resend", json: ["from": today]).status == 400)
        #expect(try await fixture.call("POST", "/v1/webhooks/\(eventID)/resend", key: fixture.keys.publishable).status == 401)
        await fixture.stop()
        await receiver.server.stop()
    }

    @Test func withoutAWebhookURLThereIsNothingToResend() async throws {
        let fixture = try await Fixture()
        let answer = try await fixture.call("POST", "/v1/webhooks/evt_1/resend")
        #expect(answer.status == 409 && "\(answer.object)".contains("webhook URL"))
        await fixture.stop()
    }

    @Test func csvFieldsStayTextInASpreadsheet() {
        #expect(CSVFile.field("plain") == "plain")
        #expect(CSVFile.field("a,b") == "\"a,b\"" && CSVFile.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVFile.field("=1+1") == "'=1+1" && CSVFile.field("@SUM(A1)") == "'@SUM(A1)" && CSVFile.field("\tx") == "'\tx")
        #expect(CSVFile.field("-4.00") == "-4.00" && CSVFile.field("+86") == "+86")
        #expect(CSVRows.parse("\u{FEFF}a,\"b,\"\"c\"\"\r\nd\"\r\n1,2\r\n") == [["a", "b,\"c\"\r\nd"], ["1", "2"]])
    }
}

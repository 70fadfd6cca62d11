import Cashier
import CashierCrypto
import CashierCurl
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// A WeChat Pay v2 notification carries no time, so one valid signed copy can be replayed without
/// end. Past the store's limit of lines for an order (``ReportLineLimit``), every copy is still
/// verified, checked against the payment and answered, but not logged: `/metrics` counts it. The
/// order is paid once, and a forged copy is still refused.
@Suite struct ReplayedNotificationTests {
    @Test func copiesPastAnOrdersLimitAreAnsweredAndCountedNotLogged() async throws {
        let fixture = try await ServerFixture(reportLines: 10)
        let id = try await fixture.createOrderID()
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.app"])
        let outTradeNo = try #require(started.object["out_trade_no"] as? String)
        let notifyURL = URL(string: fixture.server.baseURL.absoluteString + "/notify/wechat/v2")!
        func notification(totalFee: Int64) -> Data {
            var fields: [(String, String)] = [
                ("appid", fixture.wechatMerchant.appID), ("mch_id", fixture.wechatMerchant.mchID), ("nonce_str", "replayed"),
                ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", outTradeNo), ("transaction_id", "4200000009"),
                ("total_fee", String(totalFee)), ("fee_type", "CNY"), ("trade_type", "APP"), ("openid", "o1"),
                ("time_end", "20261204120000"),
            ]
            fields.append(("sign", fixture.wechatMerchant.signer.signature(for: fields, type: .md5)))
            return Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
        }
        @Sendable func post(_ body: Data) async throws -> String {
            let reply = try await ServerFixture.transport.send(
                HTTPRequest(method: "POST", url: notifyURL, body: body, timeout: ServerFixture.patience))
            return String(decoding: reply.body, as: UTF8.self)
        }
        let genuine = notification(totalFee: 5100)
        #expect(try await post(genuine).contains("SUCCESS"))
        let replies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<60 { group.addTask { try await post(genuine) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(replies.count == 60 && replies.allSatisfy { $0.contains("SUCCESS") })
        // Forged after the limit (another amount, the right key): still refused, and not logged.
        #expect(try await post(notification(totalFee: 1)).contains("FAIL"))

        let events = try await fixture.store.events(orderID: id)
        #expect(events.filter { $0.to == .paid }.count == 1)
        #expect(events.filter { $0.bodySHA256 != nil }.count == 10)
        #expect(events.filter { $0.kind == .notificationDuplicate }.count == 9)
        #expect(!events.contains { $0.kind == .notificationRefused })
        #expect(try await fixture.store.payments(orderID: id).map(\.status) == [.succeeded])
        #expect(try await fixture.store.outbox(orderID: id).map(\.type) == ["order.paid"])
        let metrics = String(decoding: try await fixture.call("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("cashier_report_lines_unlogged_total 52"))
        #expect(metrics.contains(#"cashier_notifications_total{outcome="acknowledged",provider="wechat"} 61"#))
        #expect(metrics.contains(#"cashier_notifications_total{outcome="refused",provider="wechat"} 1"#))
        await fixture.stop()
    }

    /// 120 copies at once, spread over every instance (on PostgreSQL three, each counting for
    /// itself): every copy is answered, the order moves once, each copy is either a logged repeat
    /// or counted as left out — none lost, none both — and the log keeps the limit for each
    /// instance at most.
    @Test(arguments: MoneyWorld.Backend.available)
    func copiesAcrossInstancesAreEachLoggedOrCountedOnce(backend: MoneyWorld.Backend) async throws {
        let limit = 8
        let world = try await MoneyWorld(backend, reportLines: limit)
        let order = try await world.order("12.30")
        let number = try #require(try await world.start(order.id, "wechat.native")["out_trade_no"] as? String)
        let genuine = NotificationRaceTests.notification(world.mode.wechatMerchant, number, fen: 1230)
        @Sendable func post() async throws -> String {
            let reply = try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: world.base() + "/notify/wechat/v2")!, body: genuine,
                    timeout: ServerFixture.patience))
            return String(decoding: reply.body, as: UTF8.self)
        }
        // The first copy pays the order; the rest find the success recorded (and take no lock).
        #expect(try await post().contains("SUCCESS"))
        let copies = 120
        let replies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<copies { group.addTask { try await post() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(replies.count == copies && replies.allSatisfy { $0.contains("SUCCESS") })
        let events = try await world.store.events(orderID: order.id)
        let logged = events.filter { $0.kind == .notificationDuplicate }.count
        let left = world.stores.map(\.unloggedReportLines).reduce(0, +)
        #expect(logged + left == copies, "\(logged) logged, \(left) left out")
        #expect((limit - 1)...(world.stores.count * limit - 1) ~= logged)
        #expect(events.filter { $0.to == .paid }.count == 1)
        #expect(try await world.store.payments(orderID: order.id).map(\.status) == [.succeeded])
        await world.settled()
        #expect(world.webhooks("order.paid", order: order.id).count == 1)
        await world.stop()
    }

    /// The payer's side: a refused Apple Pay token is logged with its hash, and a payer sending
    /// refused tokens again and again fills the order's log only up to the limit. Every one is
    /// still refused; a good token then pays the order.
    @Test func refusedApplePayTokensAreLoggedUpToTheLimit() async throws {
        let world = try await MoneyWorld(.sqlite, reportLines: 3)
        let order = try await world.order("20.00")
        _ = try await world.start(order.id, "applepay")
        let wrongAmount = try await world.token(for: order.id, amount: "19.99")
        for _ in 0..<5 {
            let answer = try await world.authorize(order.id, token: wrongAmount)
            #expect(answer.object["status"] as? Int == 1, "refused: \(answer.object)")
        }
        var refused = try await world.store.events(orderID: order.id).filter { $0.kind == .applePayRefused }
        #expect(refused.count == 3)
        #expect(refused.allSatisfy { $0.bodySHA256?.count == 64 })
        #expect(world.store.unloggedReportLines == 2)
        let answer = try await world.authorize(order.id, token: try await world.token(for: order.id))
        #expect(answer.object["status"] as? Int == 0, "\(answer.object)")
        #expect(try await world.waitFor(order.id, .paid))
        refused = try await world.store.events(orderID: order.id).filter { $0.kind == .applePayRefused }
        #expect(refused.count == 3)
        await world.stop()
    }
}

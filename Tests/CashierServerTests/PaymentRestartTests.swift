import Cashier
import CashierCurl
import CashierSandbox
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Starting an order's payment again — from another network, or many times at once — leaves the
/// payer exactly one trade to pay and takes the money once.
@Suite struct PaymentRestartTests {
    /// The payer opens the H5 page again from another network: WeChat Pay refuses the same trade
    /// number with another payer address ("商户订单号重复", found by Schemathesis with seed 99), so
    /// the old trade is closed there and the payment starts again under a new number — not a 502.
    @Test func aPaymentStartedAgainFromAnotherAddressGetsANewTradeNumber() async throws {
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "4.40")
        func start(from ip: String) async throws -> (status: Int, payment: String, number: String, body: String) {
            let answer = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.h5", "client_ip": ip])
            return (
                answer.status, answer.object["payment_id"] as? String ?? "", answer.object["out_trade_no"] as? String ?? "",
                String(decoding: answer.body, as: UTF8.self)
            )
        }
        let first = try await start(from: "203.0.113.7")
        try #require(first.status == 200, "\(first.body)")
        let again = try await start(from: "203.0.113.7")  // the same details: the same attempt, placed idempotently
        #expect(again.status == 200 && again.payment == first.payment && again.number == first.number, "\(again.body)")

        let moved = try await start(from: "198.51.100.9")
        #expect(moved.status == 200, "\(moved.body)")
        #expect(moved.payment != first.payment && moved.number != first.number && !moved.number.isEmpty)
        #expect(await fixture.sandbox.wechatV2.tradeState(outTradeNo: first.number) == "CLOSED")
        let payments = try await fixture.store.payments(orderID: id)
        #expect(payments.first { $0.id == first.payment }?.status == .closed, "superseded, not failed")
        #expect(payments.first { $0.id == moved.payment }?.status == .pending)

        await fixture.sandbox.wechatV2.pay(outTradeNo: moved.number, outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        #expect(try await fixture.store.order(id: id)?.settledPaymentID == moved.payment)
        await fixture.stop()
    }

    /// Twelve starts of one order's H5 payment at once, each from its own address: whatever order
    /// they land in, every answer is a 200 or a 409 "started again elsewhere", WeChat Pay is left
    /// with at most one trade the payer can pay — the attempt the store has open — and paying it
    /// settles the order once, for its amount.
    @Test func startsFromManyAddressesAtOnceLeaveOneTradeToPay() async throws {
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "6.60")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 {
                group.addTask {
                    try await fixture.call(
                        "POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.h5", "client_ip": "198.51.100.\(index + 1)"]
                    ).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { [200, 409].contains($0) } && statuses.contains(200), "\(statuses.sorted())")

        let payments = try await fixture.store.payments(orderID: id)
        var payable: [String] = []
        for payment in payments where await fixture.sandbox.wechatV2.tradeState(outTradeNo: payment.outTradeNo) == "NOTPAY" {
            payable.append(payment.outTradeNo)
        }
        let open = payments.filter { $0.status.isOpen }
        var states: [String] = []
        for payment in payments {
            states.append(
                "\(payment.outTradeNo.suffix(3)) \(payment.status) \(await fixture.sandbox.wechatV2.tradeState(outTradeNo: payment.outTradeNo) ?? "-")"
            )
        }
        #expect(
            payable.count == 1 && open.count == 1 && open.first?.outTradeNo == payable.first, "\(statuses.sorted()) \(states)")

        await fixture.sandbox.wechatV2.pay(outTradeNo: try #require(payable.first), outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        let settled = try await fixture.store.payments(orderID: id).filter { $0.status == .succeeded }
        #expect(settled.count == 1 && settled.first?.amount.minorUnits == 660)
        await fixture.stop()
    }

    /// A payer's page switching wallets again and again (the publishable key and the order's
    /// client secret are all it needs) makes the server place one trade and close another at the
    /// providers each time. The order takes ``OrderStoreLimits/attemptsPerOrder`` attempts. The
    /// next new one is refused with 409 `invalid_state`, saying to create a new order, and no
    /// provider is called for it. The attempt left open can still be paid.
    @Test func aPayerSwitchingWalletsWithoutEndIsStoppedAtTheLimit() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "6.60")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        func start(_ method: String) async throws -> (status: Int, object: [String: Any], body: String) {
            let answer = try await fixture.call(
                "POST", "/v1/orders/\(id)/payments", key: fixture.keys.publishable, json: ["method": method, "client_secret": secret])
            return (answer.status, answer.object, String(decoding: answer.body, as: UTF8.self))
        }
        var last = ""
        for attempt in 0..<OrderStoreLimits.attemptsPerOrder {
            let started = try await start(attempt % 2 == 0 ? "wechat.native" : "alipay.qr")
            try #require(started.status == 200, "attempt \(attempt + 1): \(started.body)")
            last = try #require(started.object["out_trade_no"] as? String)
        }
        let wechatTrades = await fixture.sandbox.wechatV2.ledger().count
        let refused = try await start("wechat.native")
        #expect(refused.status == 409, "\(refused.body)")
        let error = try #require(refused.object["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_state")
        #expect((error["message"] as? String)?.contains("create a new order") == true, "\(error)")
        #expect(await fixture.sandbox.wechatV2.ledger().count == wechatTrades, "no trade placed for the refused attempt")
        let payments = try await fixture.store.payments(orderID: id)
        #expect(payments.count == OrderStoreLimits.attemptsPerOrder)
        #expect(payments.filter { $0.status == .pending }.map(\.outTradeNo) == [last])

        // The open attempt (Alipay's) is still the payer's to pay, and reopening it is not refused.
        #expect(try await start("alipay.qr").status == 200)
        await fixture.sandbox.alipay.pay(outTradeNo: last, outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        await fixture.stop()
    }

    /// An app polling a payment in doubt from twenty connections at once, while the provider is
    /// slow to answer: the requests share one question to the provider instead of asking twenty
    /// times, and every one gets the answer. A request after that asks again (here every read may
    /// ask: `readQueryInterval` 0; InFlightQueriesTests has the interval).
    @Test func pollsAtOnceAboutAPaymentInDoubtShareOneQuestion() async throws {
        let fixture = try await ServerFixture(queryAfter: 0) { $0.readQueryInterval = 0 }
        let id = try await fixture.createOrderID(amount: "7.70")
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"]).status == 200)
        let before = await fixture.sandbox.wechatV2.calls(to: "pay/orderquery")
        // Slow enough that all twenty are under way within one question, even when every suite
        // shares the cores (make test's first minute) and the requests arrive seconds apart.
        fixture.sandbox.setFault(.latency(.seconds(4)))
        // Each over a connection of its own (libcurl's, not URLSession's, which holds six to a host).
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(fixture.keys.secret)")
        let poll = HTTPRequest(
            method: "GET", url: URL(string: fixture.server.baseURL.absoluteString + "/v1/orders/\(id)")!, headers: headers,
            timeout: ServerFixture.patience)
        let statuses = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let answer = try await ServerFixture.transport.send(poll)
                    return (try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["status"] as? String
                        ?? "\(answer.status)"
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: "pending", count: 20))
        let asked = await fixture.sandbox.wechatV2.calls(to: "pay/orderquery") - before
        #expect((1...8).contains(asked), "\(asked) questions for 20 polls at once")
        fixture.sandbox.setFault(.none)
        _ = try await fixture.call("GET", "/v1/orders/\(id)")
        #expect(await fixture.sandbox.wechatV2.calls(to: "pay/orderquery") - before == asked + 1)
        await fixture.stop()
    }

    /// Reads one after another about a payment in doubt ask the provider at most once in
    /// `readQueryInterval`: whoever holds the client secret cannot spend the merchant's query
    /// quota by reading as fast as it can. A payment made meanwhile (its notification lost) is
    /// found by the first read after the interval; a notification shows at once, interval or not.
    @Test func readsOneAfterAnotherAskAtMostOnceAnInterval() async throws {
        let clock = ManualClock(Date())
        let fixture = try await ServerFixture(publicBaseURL: "http://127.0.0.1:9", queryAfter: 0, clock: clock) {
            $0.readQueryInterval = 5
        }
        let order = try await fixture.createOrder(amount: "6.60")
        let id = try #require(order["id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"]).status == 200)
        let before = await fixture.sandbox.wechatV2.calls(to: "pay/orderquery")
        func asked() async -> Int { await fixture.sandbox.wechatV2.calls(to: "pay/orderquery") - before }
        func status(key: String? = nil) async throws -> String? {
            var path = "/v1/orders/\(id)"
            if key != nil { path += "?client_secret=\(order["client_secret"] as? String ?? "")" }
            return try await fixture.call("GET", path, key: key).object["status"] as? String
        }
        for _ in 0..<10 { #expect(try await status() == "pending") }
        for _ in 0..<10 { #expect(try await status(key: fixture.keys.publishable) == "pending") }
        #expect(await asked() == 1)
        // Paid at WeChat, its notification lost (the notify URL answers nothing): in doubt until the interval ends.
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        clock.advance(by: 4)
        #expect(try await status() == "pending")
        #expect(await asked() == 1)
        clock.advance(by: 1)
        #expect(try await status(key: fixture.keys.publishable) == "paid")
        #expect(await asked() == 2)
        #expect(try await fixture.store.events(orderID: id).contains { $0.kind == .query && $0.to == .paid })
        await fixture.stop()
    }
}

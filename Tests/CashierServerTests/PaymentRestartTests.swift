import Cashier
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
}

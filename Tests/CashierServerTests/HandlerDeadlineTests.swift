import Cashier
import CashierSandbox
import CashierStore
import Foundation
import TestSupport
import Testing

/// `http.handler_deadline_seconds`: a handler that outlasts it is answered 503
/// `deadline_exceeded` with `Retry-After`, and its work goes on under its `Idempotency-Key` — a
/// retry meanwhile is told the key is in use, a retry after it is the first answer replayed, and
/// the money moved once. A counter payment, which waits for the payer, is not limited.
@Suite struct HandlerDeadlineTests {
    @Test func aSlowRefundAnswers503AndFinishesOnceUnderItsKey() async throws {
        // Three seconds: a payment's ordinary handling stays inside it even on a loaded machine
        // (one second was outlasted inside a full parallel run); the refund's provider takes 7.
        let fixture = try await ServerFixture { $0.handlerDeadlineSeconds = 3 }
        let order = try await fixture.createOrder(amount: "20.00")
        let id = try #require(order["id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"]).status == 200)
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))

        fixture.sandbox.setFault(.latency(.milliseconds(7000)))
        let slow = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "slow-1"], json: ["amount": "5.00"])
        #expect(slow.status == 503 && (slow.object["error"] as? [String: Any])?["code"] as? String == "deadline_exceeded", "\(slow.object)")
        let meanwhile = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "slow-1"], json: ["amount": "5.00"])
        #expect(meanwhile.status == 409 && (meanwhile.object["error"] as? [String: Any])?["code"] as? String == "idempotency_key_in_use")
        await fixture.server.settled()
        fixture.sandbox.setFault(.none)
        let replayed = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "slow-1"], json: ["amount": "5.00"])
        #expect(replayed.status == 200, "\(replayed.object)")
        let refunds = try await fixture.store.refunds(orderID: id)
        #expect(refunds.count == 1 && refunds.first?.amount.minorUnits == 500 && refunds.first?.status == .succeeded)
        let books = await fixture.sandbox.wechatV2.ledger().first { $0.out_trade_no == order["out_trade_no"] as? String }
        #expect(books?.refunded_minor == 500)
        await fixture.stop()
    }

    @Test func aCounterPaymentWaitsForThePayerPastTheDeadline() async throws {
        let fixture = try await ServerFixture {
            $0.handlerDeadlineSeconds = 3
            $0.barcode.answerWithin = 20
            $0.barcode.giveUpAfter = 30
            $0.barcode.queryInterval = 0.1
        }
        await fixture.sandbox.wechatV2.setPasswordDelay(6)
        let id = try await fixture.createOrderID(amount: "9.90")
        let paid = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.barcode", "auth_code": "134567890123451111"])
        #expect(paid.status == 200 && paid.object["status"] as? String == "paid", "\(paid.object)")
        await fixture.stop()
    }
}

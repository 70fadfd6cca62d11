import Cashier
import CashierSandbox
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Counter payments through the server against the sandboxes: paid at once, after the payer's
/// password, given up and reversed, refused, and codes refused before any call.
@Suite struct CounterPaymentTests {
    /// The two counter methods, each with a code prefix its provider issues.
    enum Till: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case wechat = "wechat.barcode"
        case alipay = "alipay.barcode"
        var testDescription: String { rawValue }
        /// A code of this provider whose last four digits choose what the sandbox payer does.
        func code(_ ending: String) -> String { (self == .wechat ? "13456789012345" : "28654321098765") + ending }
        var provider: String { self == .wechat ? "wechat.v2" : "alipay" }
    }

    static func fixture(answerWithin: TimeInterval = 1.5, giveUpAfter: TimeInterval = 3, passwordDelay: TimeInterval = 0.4) async throws
        -> ServerFixture
    {
        let fixture = try await ServerFixture {
            $0.barcode.answerWithin = answerWithin
            $0.barcode.giveUpAfter = giveUpAfter
            $0.barcode.queryInterval = 0.1
        }
        await fixture.sandbox.wechatV2.setPasswordDelay(passwordDelay)
        await fixture.sandbox.alipay.setPasswordDelay(passwordDelay)
        return fixture
    }

    static func books(_ fixture: ServerFixture, _ number: String) async -> SandboxLedgerEntry? {
        ((await fixture.sandbox.wechatV2.ledger()) + (await fixture.sandbox.alipay.ledger())).first { $0.out_trade_no == number }
    }

    @Test(arguments: Till.allCases)
    func paidAtOnceAndAfterThePassword(_ till: Till) async throws {
        // The till waits long enough for the password (0.4 s) however loaded the machine is.
        let fixture = try await Self.fixture(answerWithin: 20, giveUpAfter: 30)
        for ending in ["0000", "1111", "5555"] {
            let id = try await fixture.createOrderID(amount: "18.80")
            let paid = try await fixture.call(
                "POST", "/v1/orders/\(id)/payments", headers: ["X-Forwarded-For": "198.51.100.7"],
                json: ["method": till.rawValue, "auth_code": till.code(ending)])
            #expect(paid.status == 200, "\(ending): \(String(decoding: paid.body, as: UTF8.self))")
            #expect(paid.object["status"] as? String == "paid" && (paid.object["transaction_id"] as? String)?.isEmpty == false)
            #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "paid")
            let number = try #require(paid.object["out_trade_no"] as? String)
            let books = await Self.books(fixture, number)
            #expect(books?.paid == true && books?.amount_minor == 1880)
            #expect(books?.sent["auth_code"] == till.code(ending))
            if till == .wechat {
                // No trusted proxy: the socket's peer is the payer, whatever X-Forwarded-For says.
                #expect(books?.sent["spbill_create_ip"] == "127.0.0.1")
            }
        }
        await fixture.stop()
    }

    @Test(arguments: Till.allCases)
    func aPayerWhoWalksAwayIsReversedAndALongPasswordIsPending(_ till: Till) async throws {
        let fixture = try await Self.fixture(answerWithin: 0.5, giveUpAfter: 6, passwordDelay: 1.2)
        // Walks away: pending at the answer, then reversed at the deadline; nothing taken.
        let id = try await fixture.createOrderID(amount: "9.90")
        let pending = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", json: ["method": till.rawValue, "auth_code": till.code("2222")])
        #expect(pending.status == 202 && pending.object["status"] as? String == "pending")
        let number = try #require(pending.object["out_trade_no"] as? String)
        let paymentID = try #require(pending.object["payment_id"] as? String)
        #expect(
            try await eventually(timeout: .seconds(15)) {
                try await fixture.store.payment(id: paymentID)?.status == .closed
            })
        let reversed = await Self.books(fixture, number)
        #expect(reversed?.state == (till == .wechat ? "REVOKED" : "TRADE_CLOSED") && reversed?.paid == false)
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String != "paid")
        // A retry with another code after the reversal takes a new trade number and pays.
        let again = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", json: ["method": till.rawValue, "auth_code": till.code("0000")])
        #expect(again.status == 200 && again.object["out_trade_no"] as? String != number)

        // A long password: pending at the answer, paid by the server's own queries before the deadline.
        let slow = try await fixture.createOrder(amount: "5.00")
        let slowID = try #require(slow["id"] as? String)
        let waiting = try await fixture.call(
            "POST", "/v1/orders/\(slowID)/payments", json: ["method": till.rawValue, "auth_code": till.code("1111")])
        #expect(waiting.status == 202)
        // The payer types for 1.2 s of real time at the sandbox, and the server asks meanwhile.
        #expect(
            try await eventually(timeout: .seconds(15)) {
                try await fixture.call("GET", "/v1/orders/\(slowID)").object["status"] as? String == "paid"
            })
        let slowBooks = await Self.books(fixture, waiting.object["out_trade_no"] as? String ?? "")
        #expect(slowBooks?.paid == true)
        await fixture.stop()
    }

    @Test(arguments: Till.allCases)
    func refusedCodesAndCodesOfTheWrongShape(_ till: Till) async throws {
        let fixture = try await Self.fixture()
        let id = try await fixture.createOrderID(amount: "3.00")
        // The provider refuses: 402 with its words; the attempt failed; a good code pays after.
        for (ending, word) in [
            ("3333", till == .wechat ? "NOTENOUGH" : "ACQ.BUYER_BALANCE_NOT_ENOUGH"),
            ("4444", till == .wechat ? "AUTHCODEEXPIRE" : "ACQ.PAYMENT_AUTH_CODE_INVALID"),
        ] {
            let refused = try await fixture.call(
                "POST", "/v1/orders/\(id)/payments", json: ["method": till.rawValue, "auth_code": till.code(ending)])
            let error = refused.object["error"] as? [String: String]
            #expect(
                refused.status == 402 && error?["code"] == "payment_failed" && error?["message"]?.contains(word) == true, "\(error ?? [:])")
        }
        // Refused before any call: no code, not digits, another provider's code.
        let other: Till = till == .wechat ? .alipay : .wechat
        let ledgerBefore = (await fixture.sandbox.wechatV2.ledger()).count + (await fixture.sandbox.alipay.ledger()).count
        for (body, status) in [
            (["method": till.rawValue], 422), (["method": till.rawValue, "auth_code": "13abc"], 400),
            (["method": till.rawValue, "auth_code": other.code("0000")], 422),
        ] as [([String: String], Int)] {
            let answer = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: body)
            #expect(answer.status == status, "\(body): \(String(decoding: answer.body, as: UTF8.self))")
        }
        let ledgerAfter = (await fixture.sandbox.wechatV2.ledger()).count + (await fixture.sandbox.alipay.ledger()).count
        #expect(ledgerAfter == ledgerBefore)
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String != "paid")
        let paid = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", json: ["method": till.rawValue, "auth_code": till.code("0000")])
        #expect(paid.status == 200)
        await fixture.stop()
    }
}

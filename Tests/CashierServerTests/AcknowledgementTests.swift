import Cashier
import CashierCrypto
import CashierCurl
import Foundation
import Testing
import WeChatPay

@testable import CashierServer
@testable import CashierStore

/// A provider hears "received" only after the change is on disk: when the commit fails, the
/// notification is answered FAIL (WeChat Pay sends it again), the order is untouched and no
/// webhook is queued; the same notification succeeds once the disk takes it.
@Suite struct AcknowledgementTests {
    @Test func aNotificationIsNotAcknowledgedWhenItsCommitFails() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder()
        let id = try #require(order["id"] as? String)
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.app"])
        let outTradeNo = try #require(started.object["out_trade_no"] as? String)
        var fields: [(String, String)] = [
            ("appid", fixture.wechatMerchant.appID), ("mch_id", fixture.wechatMerchant.mchID),
            ("nonce_str", SecureRandom.alphanumeric(count: 16)), ("result_code", "SUCCESS"), ("return_code", "SUCCESS"),
            ("out_trade_no", outTradeNo), ("transaction_id", "4200000077"), ("total_fee", "5100"), ("fee_type", "CNY"),
            ("trade_type", "APP"), ("openid", "o1"), ("time_end", "20261201120000"),
        ]
        fields.append(("sign", fixture.wechatMerchant.signer.signature(for: fields, type: .md5)))
        let notification = Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
        func notify() async throws -> [String: String] {
            let response = try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/notify/wechat/v2")!,
                    body: notification))
            return try WeChatPay.V2.XMLDocument(parsing: response.body).dictionary
        }

        // Every write now fails at COMMIT: a deferred foreign key that nothing satisfies, set
        // from another connection as a failing disk would be.
        let other = try SQLiteConnection(path: fixture.databasePath)
        try other.execute(
            """
            CREATE TABLE trap_parent (id INTEGER PRIMARY KEY);
            CREATE TABLE trap (parent INTEGER REFERENCES trap_parent(id) DEFERRABLE INITIALLY DEFERRED);
            CREATE TRIGGER trap_events AFTER INSERT ON events BEGIN INSERT INTO trap (parent) VALUES (-1); END;
            """)
        let failed = try await notify()
        #expect(failed["return_code"] == "FAIL")
        #expect(failed["return_msg"] == "temporarily unavailable")
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "pending")
        #expect(try await fixture.store.payments(orderID: id).allSatisfy { $0.status == .pending })
        #expect(try await fixture.store.events(orderID: id).contains { $0.to == .paid } == false)
        #expect(try await fixture.store.outbox(orderID: id).isEmpty)

        // The disk takes writes again: WeChat Pay's next attempt is recorded, once.
        try other.execute("DROP TRIGGER trap_events; DROP TABLE trap; DROP TABLE trap_parent;")
        #expect(try await notify()["return_code"] == "SUCCESS")
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "paid")
        #expect(try await fixture.store.events(orderID: id).filter { $0.to == .paid }.count == 1)
        #expect(try await fixture.store.outbox(orderID: id).map(\.type) == ["order.paid"])
        await fixture.stop()
    }
}

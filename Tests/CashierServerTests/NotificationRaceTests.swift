import Cashier
import CashierCrypto
import CashierCurl
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

/// A provider's notification fired many times at once — each copy over a connection of its own,
/// spread over every instance, with forged copies (another amount, signed with the right key)
/// and the sandbox's own notification among them — pays each order once: the success is found,
/// checked and recorded in one transaction, so copies racing each other (on SQLite, and across
/// three instances sharing PostgreSQL) leave one transition, one duplicate line per other
/// genuine copy, one refusal per forged copy, one `order.paid`, and books that agree.
@Suite(.timeLimit(.minutes(3))) struct NotificationRaceTests {
    typealias Backend = MoneyWorld.Backend

    /// WeChat Pay's v2 notification that `number` was paid `fen`, signed with `merchant`'s key.
    static func notification(_ merchant: WeChatPay.V2.Merchant, _ number: String, fen: Int64) -> Data {
        var fields: [(String, String)] = [
            ("appid", merchant.appID), ("mch_id", merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 16)),
            ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", number),
            ("transaction_id", "4200" + Hex.encode(SecureRandom.bytes(count: 8))), ("total_fee", String(fen)), ("fee_type", "CNY"),
            ("trade_type", "NATIVE"), ("openid", "o-race"), ("time_end", "20261202120000"),
        ]
        fields.append(("sign", merchant.signer.signature(for: fields, type: .md5)))
        return Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
    }

    @Test(arguments: Backend.available)
    func copiesFiredAtOnceOverFreshConnectionsPayEachOrderOnce(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let merchant = world.mode.wechatMerchant
        let genuineCopies = 6
        let forgedCopies = 2
        var orders: [(id: String, number: String, fen: Int64)] = []
        for (index, amount) in ["12.30", "8.05", "99.99", "0.01"].enumerated() {
            let order = try await world.order(amount)
            let started = try await world.start(order.id, "wechat.native")
            let number = try #require(started["out_trade_no"] as? String)
            orders.append((order.id, number, [1230, 805, 9999, 1][index]))
        }
        enum Sent: Sendable {
            case genuine(String)
            case forged(String)
            case sandbox(String)
        }
        // Every copy of every order at once; a new transport for each is a new connection.
        let replies = try await withThrowingTaskGroup(of: Sent.self) { group in
            for order in orders {
                group.addTask { .sandbox(try await world.pay("wechat", number: order.number)) }
                for copy in 0..<(genuineCopies + forgedCopies) {
                    let forged = copy >= genuineCopies
                    let body = Self.notification(merchant, order.number, fen: forged ? order.fen + 100 : order.fen)
                    let url = URL(string: world.base() + "/notify/wechat/v2")!
                    group.addTask {
                        let reply = try await ServerFixture.transport.send(
                            HTTPRequest(method: "POST", url: url, body: body, timeout: .seconds(60)))
                        let text = "\(reply.status) \(String(decoding: reply.body, as: UTF8.self))"
                        return forged ? .forged(text) : .genuine(text)
                    }
                }
            }
            return try await group.reduce(into: [Sent]()) { $0.append($1) }
        }
        for reply in replies {
            switch reply {
            case .genuine(let text): #expect(text.hasPrefix("200 ") && text.contains("SUCCESS"), "a genuine copy: \(text)")
            case .forged(let text): #expect(text.contains("FAIL") && !text.contains("SUCCESS"), "forged: \(text)")
            case .sandbox(let state): #expect(state == "SUCCESS", "the sandbox's trade: \(state)")
            }
        }
        // The sandbox's own notification is one more genuine copy; it may land after the burst.
        await world.settled()
        for order in orders {
            #expect(try await world.waitFor(order.id, .paid))
            #expect(
                try await world.store.events(orderID: order.id).filter { $0.kind == .notificationDuplicate }.count == genuineCopies,
                "\(order.id): every genuine copy but the first is a duplicate line")
            let events = try await world.store.events(orderID: order.id)
            #expect(events.filter { $0.to == .paid }.count == 1, "\(order.id): one transition")
            #expect(events.filter { $0.kind == .notificationRefused }.count == forgedCopies, "\(order.id): each forged copy refused")
            let paid = try await world.store.payments(orderID: order.id).filter { $0.status == .succeeded }
            #expect(paid.map(\.amount.minorUnits) == [order.fen], "\(order.id): paid once, for its amount")
        }
        await world.settled()  // a late second `order.paid` would have arrived by now
        for order in orders { #expect(world.webhooks("order.paid", order: order.id).count == 1) }
        try await world.expectBooksAgreeThenStop()
    }
}

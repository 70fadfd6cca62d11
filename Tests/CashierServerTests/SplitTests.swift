import Cashier
import CashierServer
import CashierStore
import CashierWire
import Foundation
import TestSupport
import Testing

@testable import CashierSandbox

/// Profit sharing (分账) end to end through WeChat Pay v3: receivers added, an order placed for
/// sharing and paid, split (a retry the same split), finished by the query job, a share returned,
/// the order's sharing finished; refunds bounded by what the shares hold; the provider's refusal
/// releasing the reservation; and splits and refunds fired at once over every instance (SQLite,
/// and three PostgreSQL instances) never moving more than was paid, the books checked against
/// WeChat's.
@Suite struct SplitTests {
    typealias Backend = MoneyWorld.Backend

    static let sellerMchID = "1900000109"
    static let courierOpenID = "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"

    /// An order of `amount` placed for profit sharing and paid through WeChat Pay v3; its id.
    static func paidSharedOrder(_ world: MoneyWorld, _ amount: String, sharing: Bool = true) async throws -> String {
        let created = try await world.call(
            "POST", "/v1/orders",
            json: [
                "items": [["label": "Dinner", "amount": amount]], "currency": "CNY", "description": "Dinner", "profit_sharing": sharing,
            ])
        try #require(created.status == 201, "\(created.object)")
        let id = try #require(created.object["id"] as? String)
        #expect(created.object["profit_sharing"] as? Bool == (sharing ? true : nil))
        let started = try await world.start(id, "wechat.native", api: "v3")
        let number = try #require(started["out_trade_no"] as? String)
        #expect(await world.sandbox.wechatV3.isProfitSharing(outTradeNo: number) == sharing)
        _ = try await world.pay("wechat", number: number)
        #expect(try await world.waitFor(id, .paid))
        return id
    }

    /// Adds the seller (a merchant) and the courier (a person) as receivers; their ids.
    static func receivers(_ world: MoneyWorld) async throws -> (seller: String, courier: String) {
        let seller = try await world.call(
            "POST", "/v1/receivers",
            json: ["provider": "wechat", "type": "MERCHANT_ID", "account": sellerMchID, "name": "深圳市某某餐饮有限公司", "relation_type": "STORE"])
        try #require(seller.status == 201 || seller.status == 200, "\(seller.object)")
        let courier = try await world.call(
            "POST", "/v1/receivers",
            json: ["provider": "wechat", "type": "PERSONAL_OPENID", "account": courierOpenID, "relation_type": "STAFF"])
        try #require(courier.status == 201 || courier.status == 200, "\(courier.object)")
        return (seller.object["id"] as? String ?? "", courier.object["id"] as? String ?? "")
    }

    static func share(_ receiver: String, _ amount: Int, _ description: String = "分成") -> [String: Any] {
        ["receiver": receiver, "amount": amount, "description": description]
    }

    /// The webhook types received about the splits of order `id`, each event once.
    static func events(_ world: MoneyWorld, order id: String) -> [String] {
        var seen: Set<String> = []
        return world.receiver.received.compactMap { delivery in
            guard let event = try? JSONDecoder().decode(SplitEventJSON.self, from: Data(delivery.body)), event.data.split.order_id == id,
                seen.insert(event.id).inserted
            else { return nil }
            return event.type
        }
    }

    /// Every split here against WeChat's profit-sharing orders: one there per split it knows, the
    /// same shares and results; what the payment's splits hold equal to what WeChat shared less
    /// returns; and what was shared and refunded never more than was paid.
    static func disagreements(_ world: MoneyWorld, order id: String) async throws -> [String] {
        await world.settled()
        var problems: [String] = []
        let orders = await world.sandbox.wechatV3.profitSharingOrders()
        let returns = await world.sandbox.wechatV3.profitSharingReturns()
        let splits = try await world.store.splits(orderID: id)
        for split in splits where split.providerOrderID != nil || split.status == .finished {
            guard let there = orders.first(where: { $0.out_order_no == split.outOrderNo }) else {
                problems.append("\(split.id) is not at WeChat")
                continue
            }
            for share in split.shares {
                guard let line = there.receivers.first(where: { $0.account == share.account }) else {
                    problems.append("\(split.id): \(share.account) not at WeChat")
                    continue
                }
                if line.amount != share.amountMinor {
                    problems.append("\(split.id): \(share.account) \(share.amountMinor) here, \(line.amount) there")
                }
                let result: [String: StoredSplit.Share.Result] = ["SUCCESS": .succeeded, "CLOSED": .closed, "PENDING": .pending]
                if result[line.result] != share.result {
                    problems.append("\(split.id): \(share.account) \(share.result) here, \(line.result) there")
                }
            }
        }
        for split in splits where split.status == .failed && split.providerOrderID == nil {
            if orders.contains(where: { $0.out_order_no == split.outOrderNo && $0.state != "CLOSED" }) {
                problems.append("\(split.id) failed here but WeChat has it")
            }
        }
        let numbers = Set(splits.map(\.outOrderNo))
        // The merchant's own line (an unfreeze gives the rest back to it) is no share.
        let mchID = world.mode.configuration.wechatV3?.merchant.mchID
        let shared = orders.filter { numbers.contains($0.out_order_no) }.flatMap(\.receivers)
            .filter { $0.result != "CLOSED" && $0.account != mchID }
            .reduce(Int64(0)) { $0 + $1.amount }
        let returned = returns.filter { numbers.contains($0.out_order_no) && $0.result == "SUCCESS" }.reduce(Int64(0)) { $0 + $1.amount }
        guard let order = try await world.store.order(id: id), let paymentID = order.settledPaymentID,
            let payment = try await world.store.payment(id: paymentID)
        else { return problems + ["order \(id) has no payment"] }
        if payment.sharedMinor != shared - returned {
            problems.append("shares hold \(payment.sharedMinor) here, \(shared - returned) at WeChat")
        }
        if payment.sharedMinor + payment.reserved.minorUnits > payment.amount.minorUnits {
            problems.append("\(payment.sharedMinor) shared and \(payment.reserved.minorUnits) refunded of \(payment.amount.minorUnits)")
        }
        return problems
    }

    @Test(.timeLimit(.minutes(3))) func aMarketplaceOrderIsSplitFinishedReturnedAndRefunded() async throws {
        let clock = ManualClock()
        let world = try await MoneyWorld(.sqlite, clock: clock)
        await world.sandbox.wechatV3.setProfitSharingDelay(0)
        let (seller, courier) = try await Self.receivers(world)
        #expect(
            await world.sandbox.wechatV3.profitSharingReceivers().map(\.account).sorted()
                == [Self.courierOpenID, Self.sellerMchID].sorted())
        // The seller's name went to WeChat encrypted and was never kept.
        #expect(await world.sandbox.wechatV3.profitSharingReceivers().first { $0.account == Self.sellerMchID }?.name == "深圳市某某餐饮有限公司")
        let listed = try await world.call("GET", "/v1/receivers").object["data"] as? [[String: Any]]
        #expect(listed?.count == 2 && listed?.allSatisfy { $0["name"] == nil } == true)
        let id = try await Self.paidSharedOrder(world, "100.00")

        // 20.00 to the seller, 5.00 to the courier; the retry with its key is the same split.
        let body: [String: Any] = ["receivers": [Self.share(seller, 2000), Self.share(courier, 500)], "description": "订单分账"]
        let made = try await world.call("POST", "/v1/orders/\(id)/splits", headers: ["Idempotency-Key": "split-1"], json: body)
        #expect(made.status == 201 && made.object["status"] as? String == "processing", "\(made.object)")
        let splitID = try #require(made.object["id"] as? String)
        let again = try await world.call("POST", "/v1/orders/\(id)/splits", headers: ["Idempotency-Key": "split-1"], json: body)
        #expect(again.status == 201 && again.object["id"] as? String == splitID)
        #expect(await world.sandbox.wechatV3.profitSharingOrders().count == 1)
        var page = try await world.call("GET", "/v1/orders/\(id)/splits").object
        #expect((page["shared"] as? [String: Any])?["amount_minor"] as? Int == 2500)
        #expect((page["shareable"] as? [String: Any])?["amount_minor"] as? Int == 7500)

        // A refund of more than the shares leave is refused, saying what to do; the rest may be refunded.
        let tooMuch = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "80.00"])
        #expect(tooMuch.status == 409 && tooMuch.errorCode == "refund_too_large", "\(tooMuch.object)")
        #expect(((tooMuch.object["error"] as? [String: Any])?["message"] as? String)?.contains("Return the shares first") == true)

        // The query job finds it finished.
        clock.advance(by: 61)
        #expect(try await world.servers[0].reconcileSplits() == 1)
        let finished = try await world.call("GET", "/v1/splits/\(splitID)").object
        #expect(finished["status"] as? String == "finished", "\(finished)")
        #expect((finished["receivers"] as? [[String: Any]])?.map { $0["result"] as? String } == ["succeeded", "succeeded"])

        // 10.00 comes back from the seller: shareable and refundable again.
        let returned = try await world.call(
            "POST", "/v1/splits/\(splitID)/returns", headers: ["Idempotency-Key": "return-1"],
            json: ["receiver": seller, "amount": 1000, "description": "用户退款"])
        #expect(returned.status == 201 && returned.object["status"] as? String == "pending", "\(returned.object)")
        // WeChat answers PROCESSING; the job finds it done.
        clock.advance(by: 61)
        #expect(try await world.servers[0].reconcileSplits() == 1)
        let returnID = try #require(returned.object["id"] as? String)
        let returns = try await world.call("GET", "/v1/orders/\(id)/splits").object["returns"] as? [[String: Any]]
        #expect(returns?.first { $0["id"] as? String == returnID }?["status"] as? String == "succeeded", "\(returns ?? [])")
        let overReturn = try await world.call(
            "POST", "/v1/splits/\(splitID)/returns", json: ["receiver": seller, "amount": 1001, "description": "多退"])
        #expect(overReturn.status == 409 && overReturn.errorCode == "return_too_large", "\(overReturn.object)")
        page = try await world.call("GET", "/v1/orders/\(id)/splits").object
        #expect((page["shared"] as? [String: Any])?["amount_minor"] as? Int == 1500)
        let refunded = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "85.00"])
        #expect(refunded.status == 200, "\(refunded.object)")

        // Finished: the rest unfreezes, nothing more can be shared.
        let finish = try await world.call("POST", "/v1/orders/\(id)/splits/finish", json: [String: Any]())
        #expect(finish.status == 201 && finish.object["finish"] as? Bool == true, "\(finish.object)")
        clock.advance(by: 61)
        #expect(try await world.servers[0].reconcileSplits() == 1)
        let late = try await world.call("POST", "/v1/orders/\(id)/splits", json: ["receivers": [Self.share(courier, 1)]])
        #expect(late.status == 409 && late.errorCode == "invalid_state", "\(late.object)")
        page = try await world.call("GET", "/v1/orders/\(id)/splits").object
        #expect(page["finished"] as? Bool == true && (page["shareable"] as? [String: Any])?["amount_minor"] as? Int == 0)

        await world.settled()
        #expect(Self.events(world, order: id) == ["split.created", "split.finished", "split.returned", "split.created", "split.finished"])
        // The books: the dashboard, the export and the reconciliation show it.
        let cookie = try await RecordsAndExportsTests.signIn(world.base(0), secret: world.keys.secret)
        let html = String(
            decoding: try await RecordsAndExportsTests.get(world.base(0) + "/dashboard/orders/\(id)", cookie: cookie).body, as: UTF8.self)
        #expect(html.contains("Profit sharing") && html.contains(Self.sellerMchID) && html.contains("sharing finished"))
        let list = String(
            decoding: try await RecordsAndExportsTests.get(world.base(0) + "/dashboard/splits", cookie: cookie).body, as: UTF8.self)
        #expect(list.contains(#"data-id="\#(splitID)""#))
        let day = RecordsAndExportsTests.day(Date())
        let export = try await world.call("GET", "/v1/exports/splits.csv?from=\(day)&to=\(day)")
        let rows = String(decoding: export.body, as: UTF8.self).split(separator: "\r\n")
        #expect(export.status == 200 && rows.count == 4 && rows.dropFirst().first?.contains(Self.sellerMchID) == true, "\(rows)")
        let disagreements = try await Self.disagreements(world, order: id)
        #expect(disagreements.isEmpty, "\(disagreements)")
        // Reconciliation reads WeChat's profit-sharing bill (two shares and the return) and agrees.
        let report = try await world.reconcile()
        let kinds = (report["discrepancies"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
        #expect(!kinds.contains { $0.hasPrefix("split") }, "\(report)")
        #expect((report["bill_rows"] as? [String: Any])?["wechat_splits"] as? Int == 3, "\(report)")
        let out = (report["money_out"] as? [String: Any])?["wechat"] as? [String: Any]
        #expect(out?["shares"] as? Int == 2 && out?["shared"] as? String == "25.00 CNY", "\(report)")
        await world.stop()
    }

    @Test(.timeLimit(.minutes(3))) func whatCannotBeSharedIsRefusedAndNothingMoves() async throws {
        let world = try await MoneyWorld(.sqlite)
        let (seller, courier) = try await Self.receivers(world)
        // Not placed for sharing: refused before anything is asked.
        let plain = try await Self.paidSharedOrder(world, "10.00", sharing: false)
        let notSharing = try await world.call("POST", "/v1/orders/\(plain)/splits", json: ["receivers": [Self.share(seller, 100)]])
        #expect(notSharing.status == 409 && notSharing.errorCode == "invalid_state", "\(notSharing.object)")
        // profit_sharing is the backend's: the publishable key may not set it.
        let fromApp = try await world.call(
            "POST", "/v1/orders", key: world.keys.publishable,
            json: ["items": [["label": "x", "amount": "1.00"]], "currency": "CNY", "profit_sharing": true])
        #expect(fromApp.status == 403)
        let id = try await Self.paidSharedOrder(world, "100.00")
        // An unknown receiver, one named twice, an empty list, nothing to share: 4xx, nothing reserved.
        for receivers in [
            [Self.share("rcv_nobody", 100)], [Self.share(seller, 100), Self.share(seller, 100)], [], [Self.share(seller, 0)],
        ] {
            let refused = try await world.call("POST", "/v1/orders/\(id)/splits", json: ["receivers": receivers])
            #expect([400, 422].contains(refused.status), "\(receivers): \(refused.object)")
        }
        // More than the order has: refused here. More than WeChat's 30 % to others: refused by WeChat, released.
        let over = try await world.call("POST", "/v1/orders/\(id)/splits", json: ["receivers": [Self.share(seller, 10_001)]])
        #expect(over.status == 409 && over.errorCode == "split_too_large", "\(over.object)")
        let overRatio = try await world.call("POST", "/v1/orders/\(id)/splits", json: ["receivers": [Self.share(courier, 3001)]])
        #expect(overRatio.status == 502 && overRatio.errorCode == "split_failed", "\(overRatio.object)")
        let page = try await world.call("GET", "/v1/orders/\(id)/splits").object
        #expect((page["shared"] as? [String: Any])?["amount_minor"] as? Int == 0)
        #expect((page["data"] as? [[String: Any]])?.map { $0["status"] as? String } == ["failed"])
        // A refund of everything is still possible.
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: [String: Any]()).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(id)/splits", json: ["receivers": [Self.share(seller, 100)]]).status == 409)
        // A removed receiver cannot be named.
        let removed = try await world.call("POST", "/v1/receivers/\(courier)/remove")
        #expect(removed.status == 200 && removed.object["status"] as? String == "removed")
        #expect(await world.sandbox.wechatV3.profitSharingReceivers().allSatisfy { $0.account != Self.courierOpenID })
        let another = try await Self.paidSharedOrder(world, "10.00")
        #expect(try await world.call("POST", "/v1/orders/\(another)/splits", json: ["receivers": [Self.share(courier, 100)]]).status == 422)
        // MERCHANT_ID needs the company's name.
        let nameless = try await world.call(
            "POST", "/v1/receivers", json: ["provider": "wechat", "type": "MERCHANT_ID", "account": "1900000110", "relation_type": "STORE"])
        #expect(nameless.status == 422)
        // A share recorded here as arrived that WeChat never made: reconciliation reports it.
        let forged = try await world.store.reserveSplit(
            NewSplit(
                id: "spl_forged", orderID: another, merchant: nil, outOrderNo: "SFORGED1",
                shares: [.init(type: "MERCHANT_ID", account: Self.sellerMchID, amountMinor: 100, description: "x")], finish: false,
                description: "x"),
            now: Date()
        ).split
        _ = try await world.store.moveSplit(
            forged.id,
            to: SplitProgress(
                status: .finished, providerState: "FINISHED", providerOrderID: "3008",
                shares: [.init(type: "MERCHANT_ID", account: Self.sellerMchID, result: .succeeded)]), now: Date())
        let report = try await world.reconcile()
        let missing = (report["discrepancies"] as? [[String: Any]])?.filter { $0["kind"] as? String == "split_missing_at_provider" }
        #expect(missing?.map { $0["out_trade_no"] as? String } == ["SFORGED1"], "\(report)")
        await world.stop()
    }

    /// Eight splits and eight refunds of 20.00 on one 100.00 order, fired at once over every
    /// instance: five go through whichever they are, nothing more is shared or refunded than was
    /// paid, and the books agree with WeChat's.
    @Test(.timeLimit(.minutes(4)), arguments: Backend.available)
    func splitsAndRefundsFiredAtOnceNeverMoveMoreThanWasPaid(backend: Backend) async throws {
        let clock = ManualClock()
        let world = try await MoneyWorld(backend, clock: clock)
        await world.sandbox.wechatV3.setProfitSharingMaxRatio(10_000)
        await world.sandbox.wechatV3.setProfitSharingDelay(0)
        let (seller, _) = try await Self.receivers(world)
        let id = try await Self.paidSharedOrder(world, "100.00")
        let answers = try await withThrowingTaskGroup(of: (String, MoneyWorld.Answer).self) { group in
            for index in 0..<16 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return (
                            "split",
                            try await world.call(
                                "POST", "/v1/orders/\(id)/splits", headers: ["Idempotency-Key": "race-split-\(index)"],
                                json: ["receivers": [Self.share(seller, 2000)]], via: index % world.servers.count)
                        )
                    }
                    return (
                        "refund",
                        try await world.call(
                            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "race-refund-\(index)"],
                            json: ["amount": "20.00"], via: index % world.servers.count)
                    )
                }
            }
            return try await group.reduce(into: [(String, MoneyWorld.Answer)]()) { $0.append($1) }
        }
        let through = answers.filter { $0.1.status == 200 || $0.1.status == 201 }
        let refused = answers.filter { ["refund_too_large", "split_too_large"].contains($0.1.errorCode ?? "") }
        #expect(through.count == 5 && refused.count == 11, "\(answers.map { "\($0.0) \($0.1.status) \($0.1.errorCode ?? "")" })")
        clock.advance(by: 61)
        _ = try await world.servers[0].reconcileSplits()
        let order = try #require(try await world.store.order(id: id))
        let payment = try #require(try await world.store.payment(id: order.settledPaymentID ?? ""))
        #expect(payment.sharedMinor + payment.reserved.minorUnits == 10_000)
        #expect(payment.sharedMinor == Int64(through.filter { $0.0 == "split" }.count) * 2000)
        let refunds = await world.sandbox.wechatV3.profitSharingOrders().filter { $0.state != "CLOSED" }
        #expect(refunds.count == through.filter { $0.0 == "split" }.count)
        let disagreements = try await Self.disagreements(world, order: id)
        #expect(disagreements.isEmpty, "\(disagreements)")
        try await world.expectBooksAgreeThenStop()
    }
}

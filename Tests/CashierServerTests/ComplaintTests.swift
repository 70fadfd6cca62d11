import Cashier
import CashierCrypto
import CashierCurl
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Payers' complaints end to end: raised by the payer in the sandbox against a paid v3 trade, on
/// the server after one notification (the server set its complaint notify URL at start),
/// announced, answered with an image, its refund approved through the ordinary refund, and
/// completed — and that refund raced against other refunds of the same payment on SQLite and
/// three PostgreSQL instances, never more than was paid, the books agreeing with the sandbox's.
@Suite struct ComplaintTests {
    typealias Backend = MoneyWorld.Backend

    static let png = try! Base64.decodeBytes(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

    /// A paid v3 Native order of `amount` in `world`.
    static func paidOrder(_ world: MoneyWorld, _ amount: String) async throws -> (id: String, number: String) {
        let order = try await world.order(amount)
        let started = try await world.start(order.id, "wechat.native", api: "v3")
        let number = try #require(started["out_trade_no"] as? String)
        try await world.pay("wechat", number: number)
        #expect(try await world.waitFor(order.id, .paid))
        return (order.id, number)
    }

    /// The payer complains about trade `number` in the sandbox. - Returns: WeChat's complaint id.
    static func complain(_ world: MoneyWorld, _ number: String, refund: Int64?) async throws -> String {
        var body: [String: Any] = [
            "out_trade_no": number, "complaint_detail": "咖啡是冷的", "problem_type": refund == nil ? "OTHERS" : "REFUND",
            "problem_description": refund == nil ? "其他" : "申请退款", "payer_phone": "13912345678", "images": [Base64.encode(png)],
        ]
        if let refund { body["apply_refund_amount"] = refund }
        let raised = try await world.sandboxCall("POST", "sandbox/wechat/complaints", json: body)
        return try #require(raised.object["complaint_id"] as? String, "\(String(decoding: raised.body, as: UTF8.self))")
    }

    /// The complaint the server keeps for WeChat's `providerID`, once it has it.
    static func arrived(_ world: MoneyWorld, _ providerID: String) async throws -> [String: Any] {
        var found: [String: Any]?
        _ = try await eventually {
            let list = try await world.call("GET", "/v1/complaints?state=open").object["data"] as? [[String: Any]] ?? []
            found = list.first { $0["provider_complaint_id"] as? String == providerID }
            return found != nil
        }
        return try #require(found, "complaint \(providerID) never reached the server")
    }

    @Test(.timeLimit(.minutes(3))) func aComplaintFromTheSandboxIsAnsweredWithAnImageRefundedAndCompleted() async throws {
        let world = try await MoneyWorld(.sqlite)
        #expect(
            await world.sandbox.wechatV3.complaintNotifyURL(of: world.mode.configuration.wechatV3!.merchant.mchID)?.hasSuffix(
                "/notify/wechat/v3/complaints") == true)
        let order = try await Self.paidOrder(world, "26.00")
        let providerID = try await Self.complain(world, order.number, refund: 1000)
        let listed = try await Self.arrived(world, providerID)
        // The notification brought it and was acknowledged (a first attempt past the sandbox's 5 s
        // timeout on a loaded machine is retried, as WeChat would; the record stays one).
        await world.settled()
        let attempts = await world.sandbox.delivery.attempts(for: "complaint:\(providerID):1")
        #expect(attempts.last?.acknowledged == true, "\(attempts)")
        #expect((try await world.call("GET", "/v1/complaints").object["data"] as? [[String: Any]])?.count == 1)
        let id = try #require(listed["id"] as? String)
        #expect(listed["order_id"] as? String == order.id && listed["state"] as? String == "pending")
        #expect(listed["payer_phone"] == nil && listed["overdue"] as? Bool == false)
        #expect((listed["requested_refund"] as? [String: Any])?["amount_minor"] as? Int == 1000)
        let respondBy = try #require(listed["respond_by"] as? Int)
        let settleBy = try #require(listed["settle_by"] as? Int)
        let created = try #require(listed["created"] as? Int)
        #expect(respondBy - created == 86_400 && settleBy - created == 259_200)
        #expect(try await eventually { !world.webhooks("complaint.created", order: order.id).isEmpty })
        let detail = try await world.call("GET", "/v1/complaints/\(id)").object
        #expect(detail["payer_phone"] as? String == "13912345678")
        #expect((detail["conversation"] as? [[String: Any]])?.first?["kind"] as? String == "USER_CREATE_COMPLAINT")
        // The payer's image, through the server (WeChat's URL needs a signed request).
        let image = try await world.call("GET", "/v1/complaints/\(id)/images/0")
        #expect(image.status == 200 && Array(image.body) == Self.png)

        // Answered with an image.
        let upload = try await world.call(
            "POST", "/v1/complaints/\(id)/images", json: ["filename": "receipt.png", "data": Base64.encode(Self.png)])
        #expect(upload.status == 201, "\(String(decoding: upload.body, as: UTF8.self))")
        let mediaID = try #require(upload.object["media_id"] as? String)
        let answered = try await world.call(
            "POST", "/v1/complaints/\(id)/responses",
            json: ["text": "抱歉，已为您退款", "images": [mediaID], "link_url": "https://shop.example.com/o/1", "link_text": "查看订单"])
        #expect(answered.status == 200 && answered.object["state"] as? String == "processing", "\(answered.object)")
        #expect((answered.object["conversation"] as? [[String: Any]])?.last?["images"] as? [String] != [])
        // Refunded through the ordinary refund: reserved, recorded, at WeChat.
        let approved = try await world.call("POST", "/v1/complaints/\(id)/refund", json: ["decision": "approve"])
        #expect(approved.status == 200, "\(String(decoding: approved.body, as: UTF8.self))")
        #expect(approved.object["refund_decision"] as? String == "approved" && approved.object["state"] as? String == "processed")
        let refundID = try #require(approved.object["refund_id"] as? String)
        let refund = try #require(try await world.store.refund(id: refundID))
        #expect(refund.amount.minorUnits == 1000 && refund.status == .succeeded && refund.reason == "complaint \(id)")
        #expect(try await world.store.order(id: order.id)?.refunded.minorUnits == 1000)
        // Approving again refunds nothing more.
        #expect(try await world.call("POST", "/v1/complaints/\(id)/refund", json: ["decision": "approve"]).status == 200)
        #expect(try await world.ledger().first { $0.out_trade_no == order.number }?.refunded_minor == 1000)
        let completed = try await world.call("POST", "/v1/complaints/\(id)/complete")
        #expect(completed.status == 200 && completed.object["state"] as? String == "processed")
        #expect(await world.sandbox.wechatV3.complaints(ofTrade: order.number).map(\.state) == ["PROCESSED"])
        #expect(try await eventually { !world.webhooks("complaint.updated", order: order.id).isEmpty })
        try await world.expectBooksAgreeThenStop()
    }

    /// The complaint's approved refund and the order's own refunds, fired at once over every
    /// instance: the payment's 26.00 is never exceeded, the complaint's refund is made at most
    /// once (its number comes from the complaint), WeChat hears "approve" only when it was made,
    /// and the books agree with the sandbox's.
    @Test(.timeLimit(.minutes(4)), arguments: Backend.available)
    func anApprovedRefundRacingOtherRefundsNeverRefundsMoreThanWasPaid(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        for round in 0..<2 {
            let order = try await Self.paidOrder(world, "26.00")
            let providerID = try await Self.complain(world, order.number, refund: 2000)
            let id = try #require(try await Self.arrived(world, providerID)["id"] as? String)
            let answers = try await withThrowingTaskGroup(of: (String, MoneyWorld.Answer).self) { group in
                for index in 0..<6 {
                    group.addTask {
                        ("complaint", try await world.call("POST", "/v1/complaints/\(id)/refund", json: ["decision": "approve"]))
                    }
                    group.addTask {
                        (
                            "order",
                            try await world.call(
                                "POST", "/v1/orders/\(order.id)/refunds", headers: ["Idempotency-Key": "race-\(round)-\(index)"],
                                json: ["amount": "10.00"])
                        )
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let statuses = answers.map { "\($0.0) \($0.1.status) \($0.1.errorCode ?? "")" }
            #expect(answers.allSatisfy { [200, 409].contains($0.1.status) }, "\(statuses)")
            let refunds = try await world.store.refunds(orderID: order.id).filter { $0.status == .succeeded }
            let total = refunds.reduce(0) { $0 + $1.amount.minorUnits }
            #expect(total <= 2600, "\(statuses)")
            let fromComplaint = refunds.filter { $0.reason == "complaint \(id)" }
            #expect(fromComplaint.count <= 1 && fromComplaint.allSatisfy { $0.amount.minorUnits == 2000 })
            let complaint = try #require(try await world.store.complaint(id: id))
            let approvedHere = answers.contains { $0.0 == "complaint" && $0.1.status == 200 }
            #expect(approvedHere == !fromComplaint.isEmpty)
            #expect((complaint.refundDecision == "approved") == approvedHere && complaint.refundID == fromComplaint.first?.id)
            let atWeChat = try await world.sandboxCall("GET", "sandbox/wechat/complaints/\(providerID)").object
            #expect((atWeChat["refund_decision"] as? String == "APPROVE") == approvedHere, "\(atWeChat)")
            #expect(try await world.ledger().first { $0.out_trade_no == order.number }?.refunded_minor == Int64(total))
        }
        try await world.expectBooksAgreeThenStop()
    }
}

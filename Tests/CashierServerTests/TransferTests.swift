import Cashier
import CashierCrypto
import CashierServer
import CashierStore
import CashierWire
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierSandbox

/// Transfers out (WeChat Pay's 商家转账) end to end: made through the API, confirmed by the payee
/// through the sandbox's payer call, moved to succeeded by one signed `MCHTRANSFER.BILL.FINISHED`
/// notification; cancelled; lapsed after 24 hours by the sandbox clock; a forged notification
/// refused and nothing moved; and one transfer fired many times at once over every instance
/// (SQLite, and three PostgreSQL instances) is one bill at WeChat, the balance debited once.
@Suite struct TransferTests {
    typealias Backend = MoneyWorld.Backend

    static func body(amount: Int = 500, userName: String? = nil, remark: String = "新会员开通有礼") -> [String: Any] {
        var body: [String: Any] = [
            "provider": "wechat", "amount": amount, "currency": "CNY", "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", "remark": remark,
            "report_infos": [["info_type": "活动名称", "info_content": "新会员有礼"]],
        ]
        if let userName { body["user_name"] = userName }
        return body
    }

    /// The webhook types received about transfer `id`, each event once (a redelivery keeps its id).
    static func events(_ world: MoneyWorld, _ id: String) -> [String] {
        var seen: Set<String> = []
        return world.receiver.received.compactMap { delivery in
            guard let event = try? JSONDecoder().decode(TransferEventJSON.self, from: Data(delivery.body)), event.data.transfer.id == id,
                seen.insert(event.id).inserted
            else { return nil }
            return event.type
        }
    }

    /// Every transfer here against the sandbox's bills: one bill per transfer WeChat knows, none
    /// of ours missing, the same amount, and the same state once everything settled.
    /// - Returns: what disagrees (empty when the books agree).
    static func disagreements(_ world: MoneyWorld) async throws -> [String] {
        await world.settled()
        let bills = await world.sandbox.wechatV3.transferBills()
        let transfers = try await world.store.transfers(merchant: nil, limit: 1000, offset: 0)
        var problems: [String] = []
        let states: [String: StoredTransfer.Status] = [
            "WAIT_USER_CONFIRM": .waitingForPayee, "SUCCESS": .succeeded, "FAIL": .failed, "CANCELLED": .cancelled,
        ]
        for bill in bills {
            guard let transfer = transfers.first(where: { $0.outBillNo == bill.out_bill_no }) else {
                problems.append("bill \(bill.out_bill_no) has no transfer here")
                continue
            }
            if transfer.amount.minorUnits != bill.transfer_amount {
                problems.append("\(transfer.id): \(transfer.amount) here, \(bill.transfer_amount) at WeChat")
            }
            if states[bill.state] != transfer.status { problems.append("\(transfer.id): \(transfer.status) here, \(bill.state) at WeChat") }
        }
        for transfer in transfers where transfer.providerBillNo != nil && !bills.contains(where: { $0.out_bill_no == transfer.outBillNo }) {
            problems.append("\(transfer.id) names a bill WeChat does not have")
        }
        if Set(bills.map(\.out_bill_no)).count != bills.count { problems.append("two bills share an out_bill_no") }
        return problems
    }

    static func mchID(_ world: MoneyWorld) -> String { world.mode.configuration.wechatV3!.merchant.mchID }

    /// The payee's confirmation through the sandbox's payer call.
    static func confirm(_ world: MoneyWorld, _ transfer: [String: Any], outcome: String = "confirm") async throws -> MoneyWorld.Answer {
        try await world.sandboxCall(
            "POST", "sandbox/wechat/transfer_bills/confirm",
            json: [
                "out_bill_no": transfer["out_bill_no"] as? String ?? "", "package_info": transfer["package_info"] as? String ?? "",
                "mchid": transfer["mch_id"] as? String ?? "", "appid": transfer["app_id"] as? String ?? "", "outcome": outcome,
            ])
    }

    @Test(.timeLimit(.minutes(3))) func aTransferConfirmedByItsPayeeSucceedsOnceByItsNotification() async throws {
        let world = try await MoneyWorld(.sqlite)
        let opening = await world.sandbox.wechatV3.transferBalance(mchID: Self.mchID(world))
        let created = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "payout-1"], json: Self.body())
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let transfer = created.object
        let id = try #require(transfer["id"] as? String)
        #expect(transfer["status"] as? String == "waiting_for_payee" && transfer["provider_state"] as? String == "WAIT_USER_CONFIRM")
        #expect((transfer["package_info"] as? String)?.isEmpty == false && transfer["mch_id"] as? String == Self.mchID(world))
        #expect((transfer["amount"] as? [String: Any])?["amount_minor"] as? Int == 500 && transfer["user_name_given"] as? Bool == false)
        #expect(await world.sandbox.wechatV3.transferBalance(mchID: Self.mchID(world)) == opening - 500)
        // Retried with its key: answered as before, no second bill.
        let retried = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "payout-1"], json: Self.body())
        #expect(retried.status == 201 && retried.object["id"] as? String == id)
        let confirmed = try await Self.confirm(world, transfer)
        #expect(confirmed.status == 200 && confirmed.object["state"] as? String == "SUCCESS", "\(confirmed.object)")
        await world.settled()
        let after = try await world.call("GET", "/v1/transfers/\(id)").object
        #expect(after["status"] as? String == "succeeded" && after["package_info"] == nil && after["finished"] is Int, "\(after)")
        let attempts = await world.sandbox.delivery.attempts(for: transfer["out_bill_no"] as? String ?? "")
        #expect(attempts.count == 1 && attempts.first?.acknowledged == true, "\(attempts)")
        let listed = try await world.call("GET", "/v1/transfers").object["data"] as? [[String: Any]]
        #expect(listed?.map { $0["id"] as? String } == [id])
        #expect(await world.sandbox.wechatV3.transferBills().count == 1)
        #expect(await world.sandbox.wechatV3.transferBalance(mchID: Self.mchID(world)) == opening - 500)
        // One webhook as WeChat accepted it, one as it succeeded.
        #expect(Self.events(world, id) == ["transfer.created", "transfer.succeeded"])
        // The dashboard lists it.
        let base = world.base(0)
        let cookie = try await RecordsAndExportsTests.signIn(base, secret: world.keys.secret)
        let dashboard = try await RecordsAndExportsTests.get(base + "/dashboard/transfers", cookie: cookie)
        let html = String(decoding: dashboard.body, as: UTF8.self)
        #expect(dashboard.status == 200 && html.contains(#"data-id="\#(id)""#) && html.contains("succeeded") && html.contains("5.00 CNY"))
        // Ended: it cannot be cancelled.
        let late = try await world.call("POST", "/v1/transfers/\(id)/cancel")
        #expect(late.status == 409 && late.errorCode == "invalid_state")
        // Another body under the same key is refused.
        let other = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "payout-1"], json: Self.body(amount: 600))
        #expect(other.status == 409 && other.errorCode == "idempotency_conflict")
        #expect(try await Self.disagreements(world).isEmpty)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(3))) func aTransferIsCancelledOrLapsesAfter24HoursAndTheMoneyComesBack() async throws {
        let world = try await MoneyWorld(.sqlite)
        let mchID = Self.mchID(world)
        let opening = await world.sandbox.wechatV3.transferBalance(mchID: mchID)
        let now = Mutex(Date())
        await world.sandbox.wechatV3.setTransferClock { now.withLock { $0 } }
        let cancelling = try await world.call("POST", "/v1/transfers", json: Self.body(amount: 700)).object
        let cancelled = try await world.call("POST", "/v1/transfers/\(cancelling["id"] as? String ?? "")/cancel")
        #expect(cancelled.status == 200 && cancelled.object["status"] as? String == "cancelled", "\(cancelled.object)")
        #expect(try await Self.confirm(world, cancelling).status == 409)
        let lapsing = try await world.call("POST", "/v1/transfers", json: Self.body(amount: 800)).object
        now.withLock { $0 = $0.addingTimeInterval(24 * 3600) }
        await world.sandbox.wechatV3.expireTransfers()
        await world.settled()
        let lapsed = try await world.call("GET", "/v1/transfers/\(lapsing["id"] as? String ?? "")").object
        #expect(lapsed["status"] as? String == "failed" && lapsed["failure_reason"] as? String == "OVERDUE_CLOSE", "\(lapsed)")
        #expect(await world.sandbox.wechatV3.transferBalance(mchID: mchID) == opening)
        #expect(Self.events(world, cancelling["id"] as? String ?? "") == ["transfer.created", "transfer.cancelled"])
        #expect(Self.events(world, lapsing["id"] as? String ?? "") == ["transfer.created", "transfer.failed"])
        // From 2000 yuan the payee's name is required, and sent encrypted.
        let nameless = try await world.call("POST", "/v1/transfers", json: Self.body(amount: 200_000))
        #expect(nameless.status == 422)
        let named = try await world.call("POST", "/v1/transfers", json: Self.body(amount: 200_000, userName: "张三"))
        #expect(named.status == 201 && named.object["user_name_given"] as? Bool == true && named.object["user_name"] == nil)
        #expect(await world.sandbox.wechatV3.transferBills().contains { $0.transfer_amount == 200_000 && $0.user_name == "张三" })
        // Below WeChat's floor: refused here. More than the account holds: refused by WeChat (409), recorded failed.
        #expect(try await world.call("POST", "/v1/transfers", json: Self.body(amount: 9)).status == 400)
        // Texts past the document's lengths (in characters, as JSON Schema counts them): refused, nothing sent.
        let bills = await world.sandbox.wechatV3.transferBills().count
        var long = Self.body()
        long["report_infos"] = [["info_type": String(repeating: "型", count: 33), "info_content": "新会员有礼"]]
        #expect(try await world.call("POST", "/v1/transfers", json: long).status == 400)
        long["report_infos"] = [["info_type": "活动名称", "info_content": String(repeating: "礼", count: 65)]]
        #expect(try await world.call("POST", "/v1/transfers", json: long).status == 400)
        long = Self.body()
        long["perception"] = String(repeating: "奖", count: 33)
        #expect(try await world.call("POST", "/v1/transfers", json: long).status == 400)
        #expect(
            try await world.call("POST", "/v1/transfers", json: Self.body(remark: String(repeating: "e\u{301}", count: 17))).status == 400)
        #expect(await world.sandbox.wechatV3.transferBills().count == bills)
        await world.sandbox.wechatV3.setTransferBalance(100, mchID: mchID)
        let poor = try await world.call("POST", "/v1/transfers", json: Self.body(amount: 500))
        #expect(poor.status == 409 && poor.errorCode == "insufficient_funds", "\(poor.object)")
        let refused = try await world.store.transfers(merchant: nil, limit: 1, offset: 0).first
        #expect(refused?.status == .failed && refused?.failureReason?.hasPrefix("NOT_ENOUGH") == true)
        let disagreements = try await Self.disagreements(world)
        #expect(disagreements.isEmpty, "\(disagreements)")
        await world.stop()
    }

    /// WeChat made the bill but its answer was lost (a 502 from a proxy): the transfer stays
    /// reserved (503), the retry with the same key finds the same bill, and the query job finds it
    /// too; one that never reached WeChat fails after 15 minutes, by the server's clock.
    @Test(.timeLimit(.minutes(3))) func aTransferInDoubtIsFoundByItsRetryOrTheQueryJob() async throws {
        let clock = ManualClock()
        let world = try await MoneyWorld(.sqlite, clock: clock)
        // Every reply lost while the server tries (it tries again itself, with the same number).
        world.sandbox.setFault(.lostReplies(10))
        let lost = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "lost-1"], json: Self.body())
        world.sandbox.setFault(.none)
        #expect(lost.status == 503 && lost.errorCode == "provider_unavailable", "\(lost.object)")
        let pending = try #require(try await world.store.transfers(merchant: nil, limit: 10, offset: 0).first)
        #expect(pending.status == .pending && pending.providerBillNo == nil)
        #expect(await world.sandbox.wechatV3.transferBills().count == 1)
        clock.advance(by: 61)
        #expect(try await world.servers[0].reconcileTransfers() == 1)
        let found = try #require(try await world.store.transfer(id: pending.id))
        // WeChat's query gives no package_info: the retry asks WeChat again, which answers the same bill with one.
        #expect(found.status == .waitingForPayee && found.providerBillNo != nil && found.packageInfo == nil)
        let retried = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "lost-1"], json: Self.body())
        #expect(retried.status == 201 && retried.object["id"] as? String == pending.id)
        #expect(
            (retried.object["package_info"] as? String)?.isEmpty == false
                && retried.object["provider_bill_no"] as? String == found.providerBillNo)
        #expect(await world.sandbox.wechatV3.transferBills().count == 1)
        // Never reached WeChat (it answered 500 and made nothing): failed once WeChat still does not know it after 15 minutes.
        world.sandbox.setFault(.serverError)
        let refused = try await world.call("POST", "/v1/transfers", json: Self.body(amount: 900))
        world.sandbox.setFault(.none)
        #expect(refused.status == 503)
        let unsent = try #require(
            try await world.store.transfers(merchant: nil, limit: 10, offset: 0).first { $0.amount.minorUnits == 900 })
        clock.advance(by: 120)
        _ = try await world.servers[0].reconcileTransfers()
        #expect(try await world.store.transfer(id: unsent.id)?.status == .pending)
        clock.advance(by: 15 * 60)
        _ = try await world.servers[0].reconcileTransfers()
        let failed = try #require(try await world.store.transfer(id: unsent.id))
        #expect(failed.status == .failed && failed.failureReason == "the provider never received it")
        #expect(await world.sandbox.wechatV3.transferBills().count == 1)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(3))) func aForgedOrMisdirectedNotificationMovesNothing() async throws {
        let world = try await MoneyWorld(.sqlite)
        let transfer = try await world.call("POST", "/v1/transfers", json: Self.body()).object
        let id = try #require(transfer["id"] as? String)
        let forged = try await world.call(
            "POST", "/notify/wechat/v3/transfers",
            headers: [
                "Wechatpay-Timestamp": String(Int(Date().timeIntervalSince1970)), "Wechatpay-Nonce": "n",
                "Wechatpay-Signature": Base64.encode(SecureRandom.bytes(count: 256)),
                "Wechatpay-Serial": world.sandbox.wechatV3.platformCertificate.serialNumberHex,
            ],
            json: [
                "id": "EV-1", "event_type": "MCHTRANSFER.BILL.FINISHED", "resource_type": "encrypt-resource",
                "resource": ["algorithm": "AEAD_AES_256_GCM", "ciphertext": "AAAA", "nonce": "n", "associated_data": "mch_payment"],
            ])
        #expect(forged.status == 401)
        #expect(try await world.call("POST", "/notify/wechat/v3/transfers").status == 400)
        // Signed by WeChat and encrypted for this merchant, but naming another merchant, or another
        // amount: refused (400), nothing moves. The same with this merchant and amount moves it.
        let number = try #require(transfer["out_bill_no"] as? String)
        for (mchID, amount) in [("1900009999", 500), (Self.mchID(world), 1)] {
            let answer = try await Self.signedNotification(world, outBillNo: number, mchID: mchID, amount: amount)
            #expect(answer.status == 400, "\(answer.object)")
            #expect(try await world.call("GET", "/v1/transfers/\(id)").object["status"] as? String == "waiting_for_payee")
        }
        let genuine = try await Self.signedNotification(world, outBillNo: number, mchID: Self.mchID(world), amount: 500)
        #expect(genuine.status == 204)
        #expect(try await world.call("GET", "/v1/transfers/\(id)").object["status"] as? String == "succeeded")
        await world.stop()
    }

    /// A `MCHTRANSFER.BILL.FINISHED` (SUCCESS) for `outBillNo`, signed with the sandbox's platform
    /// key and encrypted with the merchant's APIv3 key, posted to the server's notify path.
    static func signedNotification(_ world: MoneyWorld, outBillNo: String, mchID: String, amount: Int) async throws -> MoneyWorld.Answer {
        let resource: [String: Any] = [
            "out_bill_no": outBillNo, "transfer_bill_no": "1330000000000000000000000000000001", "state": "SUCCESS", "mch_id": mchID,
            "transfer_amount": amount, "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", "create_time": "2026-12-07T10:00:00+08:00",
            "update_time": "2026-12-07T10:01:00+08:00",
        ]
        let apiV3Key = world.mode.configuration.wechatV3!.merchant.apiV3Key
        let nonce = SecureRandom.alphanumeric(count: 12)
        let box = try AESGCMKey(Array(apiV3Key.utf8)).seal(
            try JSONSerialization.data(withJSONObject: resource), iv: Array(nonce.utf8), authenticating: Array("mch_payment".utf8))
        let envelope: [String: Any] = [
            "id": UUID().uuidString, "create_time": "2026-12-07T10:01:00+08:00", "resource_type": "encrypt-resource",
            "event_type": "MCHTRANSFER.BILL.FINISHED", "summary": "商家转账单据终态通知",
            "resource": [
                "original_type": "mch_payment", "algorithm": "AEAD_AES_256_GCM", "ciphertext": Base64.encode(box.combined),
                "associated_data": "mch_payment", "nonce": nonce,
            ],
        ]
        let body = try JSONSerialization.data(withJSONObject: envelope)
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let platformKey = try RSAPrivateKey(pemRepresentation: WeChatSandboxTestIdentity.privateKeyPEM)
        let signature = try platformKey.signature(
            for: Array("\(timestamp)\nn0nce\n".utf8) + Array(body) + [UInt8(ascii: "\n")], scheme: .insecurePKCS1v1_5SHA256)
        let response = try await world.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: world.base() + "/notify/wechat/v3/transfers")!,
                headers: [
                    "Content-Type": "application/json", "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": "n0nce",
                    "Wechatpay-Signature": Base64.encode(signature),
                    "Wechatpay-Serial": world.sandbox.wechatV3.platformCertificate.serialNumberHex,
                ], body: body))
        return MoneyWorld.Answer(status: response.status, body: response.body)
    }

    /// One transfer (one Idempotency-Key) fired at once over every instance, then retried: one
    /// bill at WeChat, the balance debited once, every answer the same transfer or "in progress".
    @Test(.timeLimit(.minutes(4)), arguments: Backend.available)
    func theSameTransferFiredAtOnceIsOneBill(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let mchID = Self.mchID(world)
        let opening = await world.sandbox.wechatV3.transferBalance(mchID: mchID)
        for round in 0..<2 {
            let key = "payout-race-\(round)"
            let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": key], json: Self.body()) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let statuses = answers.map { "\($0.status) \($0.errorCode ?? "")" }
            #expect(answers.allSatisfy { $0.status == 201 || $0.errorCode == "idempotency_key_in_use" }, "\(statuses)")
            let settled = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": key], json: Self.body())
            #expect(settled.status == 201, "\(settled.object)")
            let ids = Set(
                answers.filter { $0.status == 201 }.compactMap { $0.object["id"] as? String } + [settled.object["id"] as? String ?? ""])
            #expect(ids.count == 1, "\(ids)")
        }
        let bills = await world.sandbox.wechatV3.transferBills()
        #expect(bills.count == 2 && Set(bills.map(\.out_bill_no)).count == 2, "\(bills)")
        #expect(await world.sandbox.wechatV3.transferBalance(mchID: mchID) == opening - 1000)
        #expect(try await world.store.transfers(merchant: nil, limit: 10, offset: 0).count == 2)
        let disagreements = try await Self.disagreements(world)
        #expect(disagreements.isEmpty, "\(disagreements)")
        await world.stop()
    }
}

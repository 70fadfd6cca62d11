import Cashier
import CashierCrypto
import CashierHTTP
public import Foundation
import WeChatPay

/// Merchant transfers (商家转账, `/v3/fund-app/mch-transfer/transfer-bills`) as WeChat answers
/// them: a bill is accepted straight into `WAIT_USER_CONFIRM` with a `package_info` (its amount
/// taken from the merchant's balance at once), the payee confirms it through the payer call
/// (``confirmTransfer(outBillNo:packageInfo:mchID:appID:outcome:)``) and it ends `SUCCESS` or
/// `FAIL`; unconfirmed for 24 hours by the sandbox clock it fails `OVERDUE_CLOSE`; the merchant
/// may cancel it until the payee confirms. A failed or cancelled bill gives its amount back.
/// Every end is notified as `MCHTRANSFER.BILL.FINISHED` (`original_type` `mch_payment`).
extension WeChatV3Sandbox {
    nonisolated func registerTransfers(on router: inout Router, prefix: String) {
        let base = "/v3/fund-app/mch-transfer/transfer-bills"
        let routes: [(String, String)] = [
            ("POST", base), ("POST", base + "/out-bill-no/{number}/cancel"), ("GET", base + "/out-bill-no/{number}"),
            ("GET", base + "/transfer-bill-no/{number}"),
        ]
        for (method, pattern) in routes {
            router.add(method, prefix + pattern) { request, parameters in
                await self.transferCall(
                    request, route: method + " " + pattern.dropFirst(base.count), number: parameters.value("number") ?? "", prefix: prefix)
            }
        }
    }

    /// What a payee does with a bill waiting for them.
    public enum TransferOutcome: String, Sendable, Codable {
        /// Confirms: the money arrives (`SUCCESS`).
        case confirm
        /// Confirms, but WeChat fails the transfer (`FAIL`, `fail_reason` `TRANSFER_RISK`), as a
        /// risk check or a wrong real name would.
        case fail
        /// Never confirms: WeChat closes the bill as its 24 hours running out would (`FAIL`,
        /// `fail_reason` `OVERDUE_CLOSE`), without waiting for them.
        case expire
    }

    private func transferCall(_ request: HTTPServerRequest, route: String, number: String, prefix: String) -> HTTPServerResponse {
        let merchant: Merchant
        switch authenticate(request, prefix: prefix, signedBody: String(decoding: request.body, as: UTF8.self)) {
        case .success(let found): merchant = found
        case .failure(let refusal): return refusal.response
        }
        expireTransfers()
        switch route {
        case "POST ": return createTransfer(request, merchant)
        case "POST /out-bill-no/{number}/cancel": return cancelTransfer(number, merchant)
        case "GET /out-bill-no/{number}":
            guard let bill = transfers.bills[WeChatTransferDesk.key(merchant.mchID, number)] else {
                return error(404, "NOT_FOUND", "记录不存在")
            }
            return signed(200, queryAnswer(bill))
        default:
            guard let bill = transfers.bills.values.first(where: { $0.transferBillNo == number && $0.mchID == merchant.mchID }) else {
                return error(404, "NOT_FOUND", "记录不存在")
            }
            return signed(200, queryAnswer(bill))
        }
    }

    private func createTransfer(_ request: HTTPServerRequest, _ merchant: Merchant) -> HTTPServerResponse {
        let body = SandboxControl.object(request) ?? [:]
        if let value = body["transfer_amount"], JSONNumber.writtenInteger(value) == nil {
            return error(
                400, "PARAM_ERROR", "无法将 JSON 输入源“/body/transfer_amount”映射到目标字段“转账金额”中，此字段需要一个合法的 64 位有符号整数")
        }
        guard let appID = body["appid"] as? String, !appID.isEmpty, let outBillNo = body["out_bill_no"] as? String,
            let sceneID = body["transfer_scene_id"] as? String, !sceneID.isEmpty, let openID = body["openid"] as? String, !openID.isEmpty,
            let amount = body["transfer_amount"].flatMap(JSONNumber.writtenInteger), let remark = body["transfer_remark"] as? String,
            !remark.isEmpty
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        guard WeChatPay.V3.TransferBillRequest.isValidBillNumber(outBillNo) else {
            return error(400, "PARAM_ERROR", "out_bill_no只能由数字、大小写字母组成，长度不超过32")
        }
        guard remark.count <= 32 else { return error(400, "PARAM_ERROR", "transfer_remark长度不能超过32个字符") }
        guard let infos = body["transfer_scene_report_infos"] as? [[String: Any]], !infos.isEmpty,
            infos.allSatisfy({ ($0["info_type"] as? String)?.isEmpty == false && ($0["info_content"] as? String)?.isEmpty == false })
        else { return error(400, "PARAM_ERROR", "transfer_scene_report_infos必填") }
        guard transfers.limits.contains(amount) else {
            return error(
                400, "INVALID_REQUEST",
                "转账金额超出该场景的单笔限额 (\(transfers.limits.lowerBound)–\(transfers.limits.upperBound) 分)")
        }
        var userName: String?
        if let cipher = body["user_name"] as? String, !cipher.isEmpty {
            switch sensitiveField(cipher, field: "user_name", request: request, merchant: merchant) {
            case .success(let name): userName = name
            case .failure(let refusal): return refusal.response
            }
        }
        if amount >= WeChatPay.V3.TransferBillRequest.nameRequiredFrom, userName == nil {
            return error(400, "PARAM_ERROR", "转账金额大于等于2000元时，收款用户姓名user_name必填")
        }
        let now = transfers.clock()
        let key = WeChatTransferDesk.key(merchant.mchID, outBillNo)
        var bill = WeChatTransferDesk.Bill(
            mchID: merchant.mchID, appID: appID, outBillNo: outBillNo,
            transferBillNo: "1330000" + SecureRandom.string(count: 27, alphabet: "0123456789"), sceneID: sceneID, openID: openID,
            amount: amount, remark: remark, userName: userName, notifyURL: body["notify_url"] as? String, created: now, updated: now,
            packageInfo: Self.packageInfo(), packages: [])
        bill.packages = [bill.packageInfo]
        if var existing = transfers.bills[key] {
            guard existing.fingerprint == bill.fingerprint else {
                return error(400, "INVALID_REQUEST", "商户单号out_bill_no重复，且请求参数与原单据不一致")
            }
            if existing.state == "WAIT_USER_CONFIRM" {
                existing.packageInfo = Self.packageInfo()
                existing.packages.insert(existing.packageInfo)
                transfers.bills[key] = existing
            }
            return signed(200, createAnswer(existing))
        }
        guard transfers.balance(merchant.mchID) >= amount else { return error(403, "NOT_ENOUGH", "商户运营账户资金不足") }
        transfers.balances[merchant.mchID] = transfers.balance(merchant.mchID) - amount
        transfers.bills[key] = bill
        return signed(200, createAnswer(bill))
    }

    private func cancelTransfer(_ number: String, _ merchant: Merchant) -> HTTPServerResponse {
        let key = WeChatTransferDesk.key(merchant.mchID, number)
        guard var bill = transfers.bills[key] else { return error(404, "NOT_FOUND", "记录不存在") }
        switch bill.state {
        case "CANCELLED": break
        case "ACCEPTED", "PROCESSING", "WAIT_USER_CONFIRM":
            bill.state = "CANCELLED"
            bill.failReason = "MCH_CANCEL"
            bill.updated = transfers.clock()
            end(bill, key: key)
        default: return error(400, "INVALID_REQUEST", "当前单据状态为\(bill.state)，不支持撤销")
        }
        let ended = transfers.bills[key] ?? bill
        return signed(
            200,
            [
                "out_bill_no": ended.outBillNo, "transfer_bill_no": ended.transferBillNo, "state": ended.state,
                "update_time": BeijingTime.string(from: ended.updated, .rfc3339),
            ])
    }

    /// Ends `bill` (SUCCESS, FAIL or CANCELLED): gives a failed or cancelled bill's amount back and
    /// notifies `MCHTRANSFER.BILL.FINISHED` when the merchant gave a notify URL.
    private func end(_ bill: WeChatTransferDesk.Bill, key: String) {
        transfers.bills[key] = bill
        if bill.state != "SUCCESS" { transfers.balances[bill.mchID] = transfers.balance(bill.mchID) + bill.amount }
        guard let url = bill.notifyURL, let merchant = merchants[bill.mchID] else { return }
        var resource = queryAnswer(bill)
        resource.removeValue(forKey: "user_name")
        resource.removeValue(forKey: "appid")
        resource.removeValue(forKey: "transfer_remark")
        deliverEvent(
            WeChatPay.V3.TransferBillEvent.eventType, summary: "商家转账单据终态通知", originalType: "mch_payment", resource: resource,
            key: bill.outBillNo, url: url, merchant: merchant)
    }

    /// Fails every bill still waiting for its payee 24 hours after it was created (by the
    /// sandbox clock), `OVERDUE_CLOSE`, and notifies it. Every transfer call sweeps first; a test
    /// that moved the clock calls it to have the notifications sent.
    public func expireTransfers() {
        let now = transfers.clock()
        for (key, bill) in transfers.bills where bill.state == "WAIT_USER_CONFIRM" {
            guard now.timeIntervalSince(bill.created) >= WeChatTransferDesk.confirmWindow else { continue }
            var ended = bill
            ended.state = "FAIL"
            ended.failReason = "OVERDUE_CLOSE"
            ended.updated = now
            end(ended, key: key)
        }
    }

    /// The payee opens a `package_info` in WeChat and confirms (``TransferOutcome``).
    /// - Returns: the bill after it.
    /// - Throws: ``PayerRefusal``: no such bill for that merchant and app, or a package that is not
    ///   the bill's (404); a bill no longer waiting for its payee (409).
    @discardableResult
    public func confirmTransfer(outBillNo: String, packageInfo: String, mchID: String, appID: String, outcome: TransferOutcome) throws
        -> SandboxTransferBill
    {
        expireTransfers()
        let key = WeChatTransferDesk.key(mchID, outBillNo)
        guard var bill = transfers.bills[key], bill.appID == appID, bill.packages.contains(packageInfo) else {
            throw PayerRefusal(
                status: 404, code: "transfer_not_found", message: "no transfer bill \(outBillNo) of \(mchID) with that package")
        }
        guard bill.state == "WAIT_USER_CONFIRM" else {
            throw PayerRefusal(status: 409, code: "transfer_not_waiting", message: "the bill is \(bill.state), not WAIT_USER_CONFIRM")
        }
        bill.updated = transfers.clock()
        switch outcome {
        case .confirm: bill.state = "SUCCESS"
        case .fail:
            bill.state = "FAIL"
            bill.failReason = "TRANSFER_RISK"
        case .expire:
            bill.state = "FAIL"
            bill.failReason = "OVERDUE_CLOSE"
        }
        end(bill, key: key)
        return Self.snapshot(bill)
    }

    // MARK: Sandbox controls

    /// Sets the clock bills are timed by (creation, the 24-hour window).
    public func setTransferClock(_ clock: @escaping @Sendable () -> Date) {
        transfers.clock = clock
    }

    /// Sets the least and most one transfer may be, in fen.
    public func setTransferLimits(_ limits: ClosedRange<Int64>) {
        transfers.limits = limits
    }

    /// Sets what `mchID` has to transfer from, in fen.
    public func setTransferBalance(_ balance: Int64, mchID: String) {
        transfers.balances[mchID] = balance
    }

    /// What `mchID` has left to transfer from, in fen.
    public func transferBalance(mchID: String) -> Int64 {
        transfers.balance(mchID)
    }

    /// Every transfer bill, oldest first.
    public func transferBills() -> [SandboxTransferBill] {
        transfers.bills.values.sorted { ($0.created, $0.outBillNo) < ($1.created, $1.outBillNo) }.map(Self.snapshot)
    }

    // MARK: Answers

    private func createAnswer(_ bill: WeChatTransferDesk.Bill) -> [String: Any] {
        var answer: [String: Any] = [
            "out_bill_no": bill.outBillNo, "transfer_bill_no": bill.transferBillNo,
            "create_time": BeijingTime.string(from: bill.created, .rfc3339), "state": bill.state,
        ]
        if bill.state == "WAIT_USER_CONFIRM" { answer["package_info"] = bill.packageInfo }
        if let reason = bill.failReason { answer["fail_reason"] = reason }
        return answer
    }

    private func queryAnswer(_ bill: WeChatTransferDesk.Bill) -> [String: Any] {
        var answer: [String: Any] = [
            "mch_id": bill.mchID, "out_bill_no": bill.outBillNo, "transfer_bill_no": bill.transferBillNo, "appid": bill.appID,
            "state": bill.state, "transfer_amount": bill.amount, "transfer_remark": bill.remark, "openid": bill.openID,
            "create_time": BeijingTime.string(from: bill.created, .rfc3339),
            "update_time": BeijingTime.string(from: bill.updated, .rfc3339),
        ]
        if let reason = bill.failReason { answer["fail_reason"] = reason }
        // WeChat answers the name encrypted for the merchant; the sandbox leaves it out.
        return answer
    }

    private static func snapshot(_ bill: WeChatTransferDesk.Bill) -> SandboxTransferBill {
        SandboxTransferBill(
            mchid: bill.mchID, appid: bill.appID, out_bill_no: bill.outBillNo, transfer_bill_no: bill.transferBillNo, openid: bill.openID,
            transfer_amount: bill.amount, state: bill.state, fail_reason: bill.failReason, user_name: bill.userName)
    }

    /// A `package_info` as WeChat hands them out: opaque, base64.
    static func packageInfo() -> String {
        Base64.encode(SecureRandom.bytes(count: 48))
    }
}

import Cashier
import CashierCrypto
import CashierHTTP
public import Foundation
import WeChatPay

/// Profit sharing (分账, `/v3/profitsharing/…`) as WeChat answers it: receivers added (a
/// merchant's by its full name, sent encrypted) and deleted; a share request on a transaction
/// paid with `settle_info.profit_sharing` accepted `PROCESSING` and `FINISHED` after
/// ``setProfitSharingDelay(_:)`` on the sandbox clock — each share `SUCCESS`, or `CLOSED`
/// (`NO_RELATION`) when its receiver was deleted meanwhile; at most 50 receivers a request and 50
/// requests a transaction, at most 30 % of what was paid to others than the merchant, never more
/// than is still unshared; `unfreeze_unsplit` or an unfreeze ends the transaction's sharing.
/// Returns and the unsplit amount are in `+ProfitSharingReturns`.
extension WeChatV3Sandbox {
    nonisolated func registerProfitSharing(on router: inout Router, prefix: String) {
        let base = "/v3/profitsharing"
        let routes: [(String, String)] = [
            ("POST", "/receivers/add"), ("POST", "/receivers/delete"), ("POST", "/orders"), ("GET", "/orders/{number}"),
            ("POST", "/orders/unfreeze"), ("POST", "/return-orders"), ("GET", "/return-orders/{number}"),
            ("GET", "/transactions/{number}/amounts"), ("GET", "/merchant-configs/{number}"), ("GET", "/bills"),
        ]
        for (method, pattern) in routes {
            router.add(method, prefix + base + pattern) { request, parameters in
                await self.profitSharingCall(
                    request, route: method + " " + pattern, number: parameters.value("number") ?? "", prefix: prefix)
            }
        }
    }

    private func profitSharingCall(_ request: HTTPServerRequest, route: String, number: String, prefix: String) -> HTTPServerResponse {
        let merchant: Merchant
        switch authenticate(request, prefix: prefix, signedBody: String(decoding: request.body, as: UTF8.self)) {
        case .success(let found): merchant = found
        case .failure(let refusal): return refusal.response
        }
        settleProfitSharing()
        let body = SandboxControl.object(request) ?? [:]
        switch route {
        case "POST /receivers/add": return addReceiver(body, request, merchant)
        case "POST /receivers/delete": return deleteReceiver(body, merchant)
        case "POST /orders": return createShare(body, request, merchant)
        case "POST /orders/unfreeze": return unfreeze(body, merchant)
        case "GET /orders/{number}":
            guard let order = sharing.orders[WeChatProfitSharingDesk.key(merchant.mchID, number)],
                request.queryValue("transaction_id") == order.transactionID
            else { return error(404, "RESOURCE_NOT_EXISTS", "记录不存在") }
            return signed(200, shareAnswer(order))
        case "POST /return-orders": return createReturn(body, merchant)
        case "GET /return-orders/{number}": return returnQuery(number, request, merchant)
        case "GET /transactions/{number}/amounts": return unsplitAnswer(number, merchant)
        case "GET /bills": return profitSharingBill(request, merchant, prefix: prefix)
        default: return signed(200, ["sub_mchid": number, "max_ratio": sharing.maxRatio])
        }
    }

    // MARK: Receivers

    private static let receiverTypes: Set<String> = ["MERCHANT_ID", "PERSONAL_OPENID", "PERSONAL_SUB_OPENID"]

    private func addReceiver(_ body: [String: Any], _ request: HTTPServerRequest, _ merchant: Merchant) -> HTTPServerResponse {
        guard let appID = body["appid"] as? String, !appID.isEmpty, let type = body["type"] as? String,
            let account = body["account"] as? String,
            !account.isEmpty, let relation = body["relation_type"] as? String
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        guard Self.receiverTypes.contains(type) else { return error(400, "PARAM_ERROR", "分账接收方类型type错误") }
        guard WeChatPay.V3.ProfitSharingReceiver.relationTypes.contains(relation) else {
            return error(400, "PARAM_ERROR", "与分账方的关系类型relation_type错误")
        }
        let custom = body["custom_relation"] as? String
        if relation == "CUSTOM", custom?.isEmpty ?? true || (custom?.count ?? 0) > 10 {
            return error(400, "PARAM_ERROR", "relation_type为CUSTOM时，custom_relation必填且不超过10个字")
        }
        guard account != merchant.mchID else { return error(400, "INVALID_REQUEST", "不能添加分账方自身为分账接收方") }
        var name: String?
        if let cipher = body["name"] as? String, !cipher.isEmpty {
            switch sensitiveField(cipher, field: "name", request: request, merchant: merchant) {
            case .success(let plain): name = plain
            case .failure(let refusal): return refusal.response
            }
        }
        if type == "MERCHANT_ID", name == nil { return error(400, "PARAM_ERROR", "分账接收方类型为MERCHANT_ID时，name必填") }
        sharing.receivers[WeChatProfitSharingDesk.key(merchant.mchID, type, account)] = .init(
            mchID: merchant.mchID, appID: appID, type: type, account: account, name: name, relationType: relation, customRelation: custom)
        var answer: [String: Any] = ["type": type, "account": account, "relation_type": relation]
        if let cipher = body["name"] as? String { answer["name"] = cipher }
        if let custom { answer["custom_relation"] = custom }
        return signed(200, answer)
    }

    private func deleteReceiver(_ body: [String: Any], _ merchant: Merchant) -> HTTPServerResponse {
        guard let appID = body["appid"] as? String, !appID.isEmpty, let type = body["type"] as? String, Self.receiverTypes.contains(type),
            let account = body["account"] as? String, !account.isEmpty
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        sharing.receivers.removeValue(forKey: WeChatProfitSharingDesk.key(merchant.mchID, type, account))
        return signed(200, ["type": type, "account": account])
    }

    // MARK: Shares

    /// The paid profit-sharing transaction `transactionID` of `merchant` (its `out_trade_no` and
    /// order), or WeChat's refusal.
    func sharedTransaction(_ transactionID: String, _ merchant: Merchant) -> Result<(String, Order), Refusal> {
        guard let (number, order) = orders.first(where: { $0.value.transactionID == transactionID }), order.mchID == merchant.mchID else {
            return .failure(Refusal(error(404, "RESOURCE_NOT_EXISTS", "订单不存在")))
        }
        guard order.state == "SUCCESS" || order.state == "REFUND" else {
            return .failure(Refusal(error(400, "INVALID_REQUEST", "订单未支付成功，不能分账")))
        }
        guard order.sent["profit_sharing"] == "true" else {
            return .failure(Refusal(error(400, "INVALID_REQUEST", "该笔订单不支持分账：下单时未设置settle_info.profit_sharing为true")))
        }
        return .success((number, order))
    }

    /// What is left to share of a paid transaction: nothing once its sharing ended, else what was
    /// paid less refunds and what the shares hold.
    func unsplit(_ transactionID: String, _ order: Order) -> Int64 {
        guard !sharing.ended.contains(transactionID) else { return 0 }
        return max(0, order.total - order.refunded - sharing.sharedHeld(transactionID))
    }

    private func createShare(_ body: [String: Any], _ request: HTTPServerRequest, _ merchant: Merchant) -> HTTPServerResponse {
        guard let transactionID = body["transaction_id"] as? String, let outOrderNo = body["out_order_no"] as? String,
            let entries = body["receivers"] as? [[String: Any]], let unfreezeUnsplit = body["unfreeze_unsplit"] as? Bool
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        guard WeChatPay.V3.ProfitSharingOrderRequest.isValidOrderNumber(outOrderNo) else {
            return error(400, "PARAM_ERROR", "out_order_no只能由数字、大小写字母、_-|*@组成，长度不超过64")
        }
        guard !entries.isEmpty, entries.count <= WeChatProfitSharingDesk.maxReceivers else {
            return error(400, "PARAM_ERROR", "分账接收方列表receivers不能为空且不能超过\(WeChatProfitSharingDesk.maxReceivers)个")
        }
        var shares: [WeChatProfitSharingDesk.Share] = []
        for entry in entries {
            guard let type = entry["type"] as? String, Self.receiverTypes.contains(type), let account = entry["account"] as? String,
                let amount = entry["amount"].flatMap(JSONNumber.writtenInteger), amount > 0,
                let description = entry["description"] as? String,
                !description.isEmpty, description.count <= 80
            else { return error(400, "PARAM_ERROR", "分账接收方列表receivers格式错误：type、account、amount(>0)、description(≤80字)必填") }
            if let cipher = entry["name"] as? String, !cipher.isEmpty,
                case .failure(let refusal) = sensitiveField(cipher, field: "name", request: request, merchant: merchant)
            {
                return refusal.response
            }
            let own = type == "MERCHANT_ID" && account == merchant.mchID
            guard own || sharing.receivers[WeChatProfitSharingDesk.key(merchant.mchID, type, account)] != nil else {
                return error(400, "INVALID_REQUEST", "分账接收方关系不存在，请检查参数中每个接收方的关系是否已添加")
            }
            shares.append(
                .init(type: type, account: account, amount: amount, description: description, detailID: Self.profitSharingID("36")))
        }
        let fingerprint =
            [transactionID, String(unfreezeUnsplit)] + shares.flatMap { [$0.type, $0.account, String($0.amount), $0.description] }
        let key = WeChatProfitSharingDesk.key(merchant.mchID, outOrderNo)
        if let existing = sharing.orders[key] {
            guard existing.fingerprint == fingerprint, !existing.unfreeze else {
                return error(400, "INVALID_REQUEST", "商户分账单号out_order_no重复，且请求参数与原分账单不一致")
            }
            return signed(200, shareAnswer(existing))
        }
        let order: Order
        switch sharedTransaction(transactionID, merchant) {
        case .success(let found): order = found.1
        case .failure(let refusal): return refusal.response
        }
        guard !sharing.ended.contains(transactionID) else { return error(400, "INVALID_REQUEST", "该笔订单已完结分账（剩余资金已解冻），不能再分账") }
        guard sharing.orders(of: transactionID).filter({ !$0.unfreeze }).count < WeChatProfitSharingDesk.maxRequests else {
            return error(400, "INVALID_REQUEST", "该笔订单的分账请求已达\(WeChatProfitSharingDesk.maxRequests)次上限")
        }
        let total = shares.reduce(0) { $0 + $1.amount }
        let toOthers = shares.filter { $0.account != merchant.mchID }.reduce(0) { $0 + $1.amount }
        guard (sharing.sharedToOthers(transactionID, mchID: merchant.mchID) + toOthers) * 10_000 <= order.total * sharing.maxRatio else {
            return error(400, "INVALID_REQUEST", "分账金额超出最大分账比例")
        }
        guard total <= unsplit(transactionID, order) else { return error(403, "NOT_ENOUGH", "分账金额超出订单剩余待分金额") }
        let accepted = WeChatProfitSharingDesk.Order(
            mchID: merchant.mchID, appID: body["appid"] as? String, transactionID: transactionID, outOrderNo: outOrderNo,
            orderID: Self.profitSharingID("30"), created: sharing.clock(), shares: shares, unfreezeUnsplit: unfreezeUnsplit,
            unfreeze: false,
            fingerprint: fingerprint)
        sharing.orders[key] = accepted
        if unfreezeUnsplit { sharing.ended.insert(transactionID) }
        return signed(200, shareAnswer(accepted))
    }

    /// `orders/unfreeze`: ends the transaction's sharing under a new `out_order_no`; what is left
    /// goes back to the merchant (the answer's one receiver).
    private func unfreeze(_ body: [String: Any], _ merchant: Merchant) -> HTTPServerResponse {
        guard let transactionID = body["transaction_id"] as? String, let outOrderNo = body["out_order_no"] as? String,
            let description = body["description"] as? String, !description.isEmpty, description.count <= 80
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        guard WeChatPay.V3.ProfitSharingOrderRequest.isValidOrderNumber(outOrderNo) else {
            return error(400, "PARAM_ERROR", "out_order_no只能由数字、大小写字母、_-|*@组成，长度不超过64")
        }
        let key = WeChatProfitSharingDesk.key(merchant.mchID, outOrderNo)
        let fingerprint = [transactionID, "unfreeze", description]
        if let existing = sharing.orders[key] {
            guard existing.fingerprint == fingerprint else {
                return error(400, "INVALID_REQUEST", "商户分账单号out_order_no重复，且请求参数与原分账单不一致")
            }
            return signed(200, shareAnswer(existing))
        }
        let order: Order
        switch sharedTransaction(transactionID, merchant) {
        case .success(let found): order = found.1
        case .failure(let refusal): return refusal.response
        }
        guard !sharing.ended.contains(transactionID) else { return error(400, "INVALID_REQUEST", "该笔订单剩余资金已解冻，不能重复解冻") }
        let rest = unsplit(transactionID, order)
        let accepted = WeChatProfitSharingDesk.Order(
            mchID: merchant.mchID, appID: nil, transactionID: transactionID, outOrderNo: outOrderNo, orderID: Self.profitSharingID("30"),
            created: sharing.clock(),
            shares: [
                .init(
                    type: "MERCHANT_ID", account: merchant.mchID, amount: rest, description: description,
                    detailID: Self.profitSharingID("36"))
            ], unfreezeUnsplit: true, unfreeze: true, fingerprint: fingerprint)
        sharing.orders[key] = accepted
        sharing.ended.insert(transactionID)
        return signed(200, shareAnswer(accepted))
    }

    /// Finishes every request and return accepted at least ``setProfitSharingDelay(_:)`` ago by
    /// the sandbox clock: a share whose receiver was deleted meanwhile is `CLOSED` (`NO_RELATION`),
    /// the rest `SUCCESS`; a return `SUCCESS`. Every profit-sharing call sweeps first; a test that
    /// moved the clock may call it to see the books move.
    public func settleProfitSharing() {
        let now = sharing.clock()
        for (key, order) in sharing.orders where order.state == "PROCESSING" && now.timeIntervalSince(order.created) >= sharing.delay {
            var done = order
            done.state = "FINISHED"
            for index in done.shares.indices {
                let share = done.shares[index]
                let own = share.type == "MERCHANT_ID" && share.account == order.mchID
                let known = own || sharing.receivers[WeChatProfitSharingDesk.key(order.mchID, share.type, share.account)] != nil
                done.shares[index].result = known ? "SUCCESS" : "CLOSED"
                done.shares[index].failReason = known ? nil : "NO_RELATION"
                done.shares[index].finished = now
            }
            sharing.orders[key] = done
        }
        for (key, entry) in sharing.returns where entry.result == "PROCESSING" && now.timeIntervalSince(entry.created) >= sharing.delay {
            sharing.returns[key]?.result = "SUCCESS"
            sharing.returns[key]?.finished = now
        }
    }

    func shareAnswer(_ order: WeChatProfitSharingDesk.Order) -> [String: Any] {
        [
            "transaction_id": order.transactionID, "out_order_no": order.outOrderNo, "order_id": order.orderID, "state": order.state,
            "receivers": order.shares.map { share -> [String: Any] in
                var entry: [String: Any] = [
                    "type": share.type, "account": share.account, "amount": share.amount, "description": share.description,
                    "result": share.result, "detail_id": share.detailID, "create_time": BeijingTime.string(from: order.created, .rfc3339),
                ]
                if let reason = share.failReason { entry["fail_reason"] = reason }
                if let finished = share.finished { entry["finish_time"] = BeijingTime.string(from: finished, .rfc3339) }
                return entry
            },
        ]
    }

    /// A number as WeChat gives its profit-sharing orders, details and returns: `prefix` and digits.
    static func profitSharingID(_ prefix: String) -> String { prefix + SecureRandom.string(count: 28, alphabet: "0123456789") }
}

import Cashier
import CashierHTTP
public import Foundation
import WeChatPay

/// Profit-sharing returns (分账回退), the unsplit amount, the refund rule for a shared
/// transaction, and the sandbox's profit-sharing books and controls.
///
/// A return takes money back from a `MERCHANT_ID` receiver of a finished request: at most what
/// that receiver got there less earlier returns, else it ends `FAILED` (`BALANCE_NOT_ENOUGH`); it
/// is accepted `PROCESSING` and ends `SUCCESS` after the profit-sharing delay. A refund of a
/// transaction paid for profit sharing may take only what the shares do not hold.
extension WeChatV3Sandbox {
    func createReturn(_ body: [String: Any], _ merchant: Merchant) -> HTTPServerResponse {
        guard let outReturnNo = body["out_return_no"] as? String, let returnMchID = body["return_mchid"] as? String,
            let amount = body["amount"].flatMap(JSONNumber.writtenInteger), amount > 0, let description = body["description"] as? String,
            !description.isEmpty, description.count <= 80
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        guard WeChatPay.V3.ProfitSharingOrderRequest.isValidOrderNumber(outReturnNo) else {
            return error(400, "PARAM_ERROR", "out_return_no只能由数字、大小写字母、_-|*@组成，长度不超过64")
        }
        let outOrderNo = body["out_order_no"] as? String
        let orderID = body["order_id"] as? String
        guard
            let order = sharing.orders.values.first(where: {
                $0.mchID == merchant.mchID && !$0.unfreeze && ($0.outOrderNo == outOrderNo || (outOrderNo == nil && $0.orderID == orderID))
            })
        else { return error(404, "RESOURCE_NOT_EXISTS", "分账单不存在") }
        let key = WeChatProfitSharingDesk.key(merchant.mchID, outReturnNo)
        if let existing = sharing.returns[key] {
            guard existing.fingerprint == [order.outOrderNo, returnMchID, String(amount), description] else {
                return error(400, "INVALID_REQUEST", "商户回退单号out_return_no重复，且请求参数与原回退单不一致")
            }
            return signed(200, returnAnswer(existing))
        }
        guard let share = order.shares.first(where: { $0.type == "MERCHANT_ID" && $0.account == returnMchID }) else {
            return error(400, "INVALID_REQUEST", "回退方return_mchid不是该分账单的商户类型分账接收方")
        }
        guard order.state == "FINISHED" else { return error(400, "INVALID_REQUEST", "分账单处理中，请在分账完成后再回退") }
        var entry = WeChatProfitSharingDesk.Return(
            mchID: merchant.mchID, outOrderNo: order.outOrderNo, orderID: order.orderID, outReturnNo: outReturnNo,
            returnID: Self.profitSharingID("50"), returnMchID: returnMchID, amount: amount, description: description,
            created: sharing.clock())
        let available =
            share.result == "SUCCESS"
            ? share.amount - sharing.returned(merchant.mchID, outOrderNo: order.outOrderNo, account: returnMchID) : 0
        if amount > available {
            entry.result = "FAILED"
            entry.failReason = "BALANCE_NOT_ENOUGH"
            entry.finished = entry.created
        }
        sharing.returns[key] = entry
        return signed(200, returnAnswer(entry))
    }

    /// `GET return-orders/{out_return_no}?out_order_no=`, also as wechatpayv3 2.0.4 writes it (`?&out_order_no=`).
    func returnQuery(_ outReturnNo: String, _ request: HTTPServerRequest, _ merchant: Merchant) -> HTTPServerResponse {
        let outOrderNo = request.queryValue("out_order_no")
        guard let entry = sharing.returns[WeChatProfitSharingDesk.key(merchant.mchID, outReturnNo)],
            outOrderNo == nil || outOrderNo == entry.outOrderNo
        else { return error(404, "RESOURCE_NOT_EXISTS", "记录不存在") }
        return signed(200, returnAnswer(entry))
    }

    func unsplitAnswer(_ transactionID: String, _ merchant: Merchant) -> HTTPServerResponse {
        guard let (_, order) = orders.first(where: { $0.value.transactionID == transactionID }), order.mchID == merchant.mchID else {
            return error(404, "RESOURCE_NOT_EXISTS", "订单不存在")
        }
        let amount =
            order.sent["profit_sharing"] == "true" && (order.state == "SUCCESS" || order.state == "REFUND")
            ? unsplit(transactionID, order) : 0
        return signed(200, ["transaction_id": transactionID, "unsplit_amount": amount])
    }

    /// WeChat's refusal of a refund of `amount` from `order` when its shares hold what the refund
    /// would need: a transaction paid for profit sharing refunds at most what was paid less
    /// refunds and less what the shares hold (returns give it back). `nil` when it may go.
    func profitSharingRefundProblem(_ order: Order, _ amount: Int64) -> HTTPServerResponse? {
        guard let transactionID = order.transactionID, order.sent["profit_sharing"] == "true" else { return nil }
        let held = sharing.sharedHeld(transactionID)
        guard order.refunded + amount + held > order.total else { return nil }
        return error(403, "NOT_ENOUGH", "订单可退金额不足：已分账\(held)分，需先分账回退再退款")
    }

    private func returnAnswer(_ entry: WeChatProfitSharingDesk.Return) -> [String: Any] {
        var answer: [String: Any] = [
            "order_id": entry.orderID, "out_order_no": entry.outOrderNo, "out_return_no": entry.outReturnNo, "return_id": entry.returnID,
            "return_mchid": entry.returnMchID, "amount": entry.amount, "description": entry.description, "result": entry.result,
            "create_time": BeijingTime.string(from: entry.created, .rfc3339),
        ]
        if let reason = entry.failReason { answer["fail_reason"] = reason }
        if let finished = entry.finished { answer["finish_time"] = BeijingTime.string(from: finished, .rfc3339) }
        return answer
    }

    // MARK: Books and controls

    /// Sets the clock profit-sharing requests and returns are timed by.
    public func setProfitSharingClock(_ clock: @escaping @Sendable () -> Date) {
        sharing.clock = clock
    }

    /// Sets how long after acceptance (on the sandbox clock) requests and returns finish (60 s unless set).
    public func setProfitSharingDelay(_ delay: TimeInterval) {
        sharing.delay = delay
    }

    /// Sets the most a transaction may give to others than the merchant, in basis points (3000 = 30 %, the default).
    public func setProfitSharingMaxRatio(_ basisPoints: Int64) {
        sharing.maxRatio = basisPoints
    }

    /// Every receiver every merchant added, by merchant, type and account.
    public func profitSharingReceivers() -> [SandboxProfitSharingReceiver] {
        sharing.receivers.sorted { $0.key < $1.key }.map { _, receiver in
            SandboxProfitSharingReceiver(
                mchid: receiver.mchID, appid: receiver.appID, type: receiver.type, account: receiver.account, name: receiver.name,
                relation_type: receiver.relationType)
        }
    }

    /// Every profit-sharing request and unfreeze, oldest first.
    public func profitSharingOrders() -> [SandboxProfitSharingOrder] {
        sharing.orders.values.sorted { ($0.created, $0.outOrderNo) < ($1.created, $1.outOrderNo) }.map { order in
            SandboxProfitSharingOrder(
                mchid: order.mchID, transaction_id: order.transactionID, out_order_no: order.outOrderNo, order_id: order.orderID,
                state: order.state, unfreeze_unsplit: order.unfreezeUnsplit, unfreeze: order.unfreeze,
                receivers: order.shares.map {
                    .init(type: $0.type, account: $0.account, amount: $0.amount, result: $0.result, fail_reason: $0.failReason)
                })
        }
    }

    /// Every return, oldest first.
    public func profitSharingReturns() -> [SandboxProfitSharingReturn] {
        sharing.returns.values.sorted { ($0.created, $0.outReturnNo) < ($1.created, $1.outReturnNo) }.map {
            SandboxProfitSharingReturn(
                mchid: $0.mchID, out_order_no: $0.outOrderNo, out_return_no: $0.outReturnNo, return_mchid: $0.returnMchID,
                amount: $0.amount,
                result: $0.result, fail_reason: $0.failReason)
        }
    }

    /// What is still frozen for sharing of `transactionID` (WeChat's `unsplit_amount`); `nil` for a
    /// transaction the sandbox does not know or that was not paid for profit sharing.
    public func profitSharingUnsplitAmount(transactionID: String) -> Int64? {
        guard let (_, order) = orders.first(where: { $0.value.transactionID == transactionID }), order.sent["profit_sharing"] == "true"
        else { return nil }
        return unsplit(transactionID, order)
    }

    /// Whether `outTradeNo` was placed with `settle_info.profit_sharing` true.
    public func isProfitSharing(outTradeNo: String) -> Bool {
        orders[outTradeNo]?.sent["profit_sharing"] == "true"
    }
}

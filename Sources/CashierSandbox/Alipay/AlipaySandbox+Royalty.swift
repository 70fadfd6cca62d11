import Alipay
import Cashier
import CashierCrypto
import Foundation

/// Profit sharing (分账) as Alipay answers it.
///
/// - Relations are per app: `alipay.trade.royalty.relation.bind` (binding again is no error),
///   `unbind`, `batchquery` (pages, in the order bound).
/// - `alipay.trade.order.settle` only on a paid trade created with `extend_params.royalty_freeze`
///   (else `ACQ.TRADE_SETTLE_ERROR`), to bound receivers only, never more than the trade's
///   unsettled amount nor, in all, more than 30 % of its total to others
///   (`ACQ.ALLOC_AMOUNT_VALIDATE_ERROR`). `sync`: at most 5 receivers and 50 requests a trade, all
///   or nothing, `SUCCESS` at once. `async`: at most 50 receivers and 300 requests, `PROCESSING`,
///   then each share `SUCCESS` or `FAIL` once the sandbox clock passes ``AlipayRoyaltyDesk/asyncDelay``,
///   announced by `alipay.trade.order.settle.notify` to the app's application gateway. One mode a
///   trade; the same `out_request_no` and body answer the same settle, another body is refused;
///   `royalty_finish` ends the trade's settling (with no shares, that is all it does).
/// - `alipay.trade.order.settle.query`, `alipay.trade.order.onsettle.query` (what is left);
///   refunds may not take what was settled; `alipay.fund.account.query` reads the transfer balance.
extension AlipaySandbox {
    /// Message-service retries after the first attempt: 2m, 10m, 10m, 1h, 2h, 6h, 15h.
    public static let messageSchedule: [Duration] = [120, 600, 600, 3600, 7200, 21600, 54000].map { .seconds($0) }

    func refusal(_ subCode: String, _ message: String) -> [String: Any] {
        failure("40004", "Business Failed", subCode, message)
    }

    // MARK: Relations

    func relationBind(_ biz: [String: Any], appID: String, bind: Bool) -> [String: Any] {
        guard let number = biz["out_request_no"] as? String, !number.isEmpty, number.utf8.count <= 64 else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "out_request_no无效")
        }
        guard let list = biz["receiver_list"] as? [[String: Any]], !list.isEmpty, list.count <= 20 else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "receiver_list须有1到20个分账方")
        }
        var receivers: [AlipayRoyaltyDesk.Relation] = []
        for entry in list {
            guard let type = entry["type"] as? String, Alipay.RoyaltyReceiver.types.contains(type),
                let account = entry["account"] as? String, !account.isEmpty
            else { return refusal("ACQ.INVALID_PARAMETER", "分账方类型或账号无效") }
            if bind, type == "loginName", (entry["name"] as? String)?.isEmpty ?? true {
                return refusal("ACQ.INVALID_PARAMETER", "登录账号类型的分账方须传姓名")
            }
            if type == "userId", !(account.hasPrefix("2088") && account.count == 16 && account.allSatisfy(\.isNumber)) {
                return refusal("ACQ.INVALID_PARAMETER", "userId须为2088开头的16位数字")
            }
            receivers.append(.init(type: type, account: account, name: entry["name"] as? String, memo: entry["memo"] as? String))
        }
        var bound = royalty.relations[appID] ?? []
        for receiver in receivers {
            let index = bound.firstIndex { $0.type == receiver.type && $0.account == receiver.account }
            if bind, index == nil { bound.append(receiver) }
            if !bind, let index { bound.remove(at: index) }
        }
        guard bound.count <= 20_000 else { return refusal("ACQ.ROYALTY_RELATION_EXCEED_LIMIT", "分账关系超过20000个") }
        royalty.relations[appID] = bound
        return success(["result_code": "SUCCESS"])
    }

    func relationBatchQuery(_ biz: [String: Any], appID: String) -> [String: Any] {
        func number(_ name: String, _ fallback: Int) -> Int {
            (biz[name] as? Int) ?? (biz[name] as? String).flatMap { Int($0) } ?? fallback
        }
        let page = number("page_num", 1)
        let size = number("page_size", 20)
        guard page >= 1, (1...100).contains(size) else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "page_num或page_size无效")
        }
        let bound = royalty.relations[appID] ?? []
        let slice = bound.dropFirst((page - 1) * size).prefix(size)
        return success([
            "result_code": "SUCCESS",
            "receiver_list": slice.map { relation -> [String: Any] in
                var entry: [String: Any] = ["type": relation.type, "account": relation.account]
                if let name = relation.name { entry["name"] = name }
                if let memo = relation.memo { entry["memo"] = memo }
                return entry
            },
            "total_page_num": (bound.count + size - 1) / size, "total_record_num": bound.count, "current_page_num": page,
            "current_page_size": slice.count,
        ])
    }

    // MARK: Settle

    /// The trade `trade_no` names, when it is this app's.
    func royaltyTrade(_ tradeNo: String?, appID: String) -> (outTradeNo: String, trade: Trade)? {
        guard let tradeNo, !tradeNo.isEmpty,
            let found = trades.first(where: { $0.value.tradeNo == tradeNo && $0.value.appID == appID })
        else { return nil }
        return (found.key, found.value)
    }

    func refunded(_ trade: Trade) -> Int64 {
        trade.refunds.values.filter { !$0.failed }.reduce(0) { $0 + $1.amount.minorUnits }
    }

    /// What is still frozen for settling: nothing once finished, else the total less refunds and settles.
    func unsettled(_ outTradeNo: String, _ trade: Trade) -> Int64 {
        if royalty.books[outTradeNo]?.finished == true { return 0 }
        return max(0, trade.total.minorUnits - refunded(trade) - royalty.settled(outTradeNo))
    }

    func orderSettle(_ biz: [String: Any], appID: String) -> [String: Any] {
        sweepRoyalty()
        guard let number = biz["out_request_no"] as? String, !number.isEmpty, number.utf8.count <= 64 else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "out_request_no无效")
        }
        guard let (outTradeNo, trade) = royaltyTrade(biz["trade_no"] as? String, appID: appID) else { return notFound() }
        let mode = biz["royalty_mode"] as? String ?? "sync"
        guard mode == "sync" || mode == "async" else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "royalty_mode须为sync或async")
        }
        let extend = biz["extend_params"] as? [String: Any]
        let finish = Self.isTrue(extend?["royalty_finish"])
        let parameters = (biz["royalty_parameters"] as? [[String: Any]]) ?? []
        let fingerprint = Self.fingerprint([trade.tradeNo, parameters, mode, finish])
        let key = AlipayRoyaltyDesk.key(trade.tradeNo, number)
        if let existing = royalty.settles[key] {
            guard existing.fingerprint == fingerprint else {
                return refusal("ACQ.PARAM_INCONSISTENT", "同一结算请求流水号的请求参数不一致")
            }
            return success(["trade_no": trade.tradeNo, "settle_no": existing.settleNo])
        }
        guard trade.status == "TRADE_SUCCESS" || trade.status == "TRADE_FINISHED" else {
            return refusal("ACQ.TRADE_STATUS_ERROR", "交易状态不合法")
        }
        guard trade.sent["royalty_freeze"] == "true" else {
            return refusal("ACQ.TRADE_SETTLE_ERROR", "分账处理失败: 交易未冻结分账资金 (created without extend_params.royalty_freeze)")
        }
        var book = royalty.books[outTradeNo] ?? AlipayRoyaltyDesk.Book()
        guard !book.finished else { return refusal("ACQ.TRADE_SETTLE_ERROR", "分账处理失败: 交易已完结分账") }
        guard !parameters.isEmpty || finish else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "royalty_parameters不能为空")
        }
        let limits = mode == "sync" ? (receivers: 5, requests: 50) : (receivers: 50, requests: 300)
        if !parameters.isEmpty {
            if let fixed = book.mode, fixed != mode {
                return refusal("ACQ.TRADE_SETTLE_ERROR", "分账处理失败: 同一笔交易不能同时使用同步和异步分账 (this trade settles \(fixed))")
            }
            guard parameters.count <= limits.receivers else {
                return refusal("ACQ.INVALID_PARAMETER", "\(mode)分账单次最多\(limits.receivers)个分账方")
            }
            guard book.settles.count < limits.requests else {
                return refusal("ACQ.SETTLE_COUNT_EXCEED_LIMIT", "单笔交易\(mode)分账请求最多\(limits.requests)次")
            }
        }
        var details: [AlipayRoyaltyDesk.Detail] = []
        let bound = royalty.relations[appID] ?? []
        for entry in parameters {
            guard (entry["royalty_type"] as? String ?? "transfer") == "transfer" else {
                return refusal("ACQ.INVALID_PARAMETER", "沙箱只支持royalty_type=transfer")
            }
            guard let type = entry["trans_in_type"] as? String ?? (entry["trans_in"] != nil ? "userId" : nil),
                let account = entry["trans_in"] as? String, !account.isEmpty,
                let amount = Self.amount(entry["amount"]), amount > 0
            else { return refusal("ACQ.INVALID_PARAMETER", "分账明细须有trans_in和大于0的amount") }
            guard bound.contains(where: { $0.type == type && $0.account == account }) else {
                return refusal("ACQ.ROYALTY_RELATION_NOT_EXIST", "分账关系不存在: 收入方未绑定 (\(type) \(account))")
            }
            details.append(
                .init(
                    transInType: type, transIn: account, amount: amount, description: entry["desc"] as? String,
                    detailID: "2026" + SecureRandom.string(count: 20, alphabet: "0123456789"), state: "PROCESSING"))
        }
        let amount = details.reduce(0) { $0 + $1.amount }
        guard amount <= unsettled(outTradeNo, trade) else {
            return refusal("ACQ.ALLOC_AMOUNT_VALIDATE_ERROR", "分账金额超过可分账金额 (unsettled \(unsettled(outTradeNo, trade)) fen)")
        }
        guard royalty.settled(outTradeNo) + amount <= trade.total.minorUnits * royalty.maxRatioPercent / 100 else {
            return refusal("ACQ.ALLOC_AMOUNT_VALIDATE_ERROR", "分账金额超过最大分账比例\(royalty.maxRatioPercent)%")
        }
        let now = royalty.now()
        if mode == "sync" {
            for index in details.indices {
                details[index].state = "SUCCESS"
                details[index].executed = now
            }
        }
        let settle = AlipayRoyaltyDesk.Settle(
            appID: appID, outTradeNo: outTradeNo, tradeNo: trade.tradeNo, outRequestNo: number,
            settleNo: "2026" + SecureRandom.string(count: 28, alphabet: "0123456789"), mode: mode, fingerprint: fingerprint,
            finish: finish, created: now, details: details,
            decideAt: mode == "async" && !details.isEmpty ? now.addingTimeInterval(royalty.asyncDelay) : nil)
        royalty.settles[key] = settle
        book.settles.append(key)
        if !details.isEmpty, book.mode == nil { book.mode = mode }
        if finish { book.finished = true }
        royalty.books[outTradeNo] = book
        return success(["trade_no": trade.tradeNo, "settle_no": settle.settleNo])
    }

    func settleQuery(_ biz: [String: Any], appID: String) -> [String: Any] {
        sweepRoyalty()
        let settle: AlipayRoyaltyDesk.Settle?
        if let settleNo = biz["settle_no"] as? String {
            settle = royalty.settles.values.first { $0.settleNo == settleNo && $0.appID == appID }
        } else if let tradeNo = biz["trade_no"] as? String, let number = biz["out_request_no"] as? String {
            settle = royalty.settles[AlipayRoyaltyDesk.key(tradeNo, number)].flatMap { $0.appID == appID ? $0 : nil }
        } else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "须传settle_no，或out_request_no和trade_no")
        }
        guard let settle else { return refusal("RESOURCE_NOT_FOUND", "分账请求不存在") }
        return success(Self.settleFields(settle))
    }

    func onsettleQuery(_ biz: [String: Any], appID: String) -> [String: Any] {
        sweepRoyalty()
        guard let (outTradeNo, trade) = royaltyTrade(biz["trade_no"] as? String, appID: appID) else { return notFound() }
        return success(["unsettled_amount": Money(minorUnits: unsettled(outTradeNo, trade), currency: .cny).decimalString])
    }

    func fundAccountQuery(_ biz: [String: Any], appID: String) -> [String: Any] {
        guard (biz["alipay_user_id"] as? String)?.isEmpty == false || (biz["alipay_open_id"] as? String)?.isEmpty == false else {
            return refusal("INVALID_PARAMETER", "alipay_user_id和alipay_open_id不能同时为空")
        }
        let balance = Money(minorUnits: transferBalance(appID: appID), currency: .cny).decimalString
        return success([
            "available_amount": balance, "freeze_amount": "0.00", "total_amount": balance,
        ])
    }

    /// A settle as the query and the notification give it.
    static func settleFields(_ settle: AlipayRoyaltyDesk.Settle) -> [String: Any] {
        let stamp = { (date: Date) in BeijingTime.string(from: date, .dateTime) }
        return [
            "out_request_no": settle.outRequestNo, "trade_no": settle.tradeNo, "settle_no": settle.settleNo,
            "operation_dt": stamp(settle.created),
            "royalty_detail_list": settle.details.map { detail -> [String: Any] in
                var entry: [String: Any] = [
                    "operation_type": "transfer", "trans_in_type": detail.transInType, "trans_in": detail.transIn,
                    "trans_out_type": "userId", "amount": Money(minorUnits: detail.amount, currency: .cny).decimalString,
                    "state": detail.state, "detail_id": detail.detailID,
                ]
                if let executed = detail.executed { entry["execute_dt"] = stamp(executed) }
                if let code = detail.errorCode { entry["error_code"] = code }
                if let text = detail.errorDescription { entry["error_desc"] = text }
                return entry
            },
        ]
    }

    static func isTrue(_ value: Any?) -> Bool {
        (value as? String) == "true" || (value as? Bool) == true
    }

    /// An amount in yuan, as a string or a JSON number (the document types it Number), in fen;
    /// `nil` for one that is not a whole number of fen.
    static func amount(_ value: Any?) -> Int64? {
        if let text = value as? String { return (try? Money(decimal: text, currency: .cny))?.minorUnits }
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let fen = number.doubleValue * 100
        guard fen.isFinite, abs(fen - fen.rounded()) < 1e-6, abs(fen) < 1e15 else { return nil }
        return Int64(fen.rounded())
    }

    static func fingerprint(_ parts: [Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: parts, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

public import Cashier

/// Profit sharing (分账): the app's royalty relations, settle requests on trades created with
/// `extend_params.royalty_freeze`, their query, what is left to settle — and the account
/// transfers are paid from (`alipay.fund.account.query`).
extension Alipay.Client {
    /// Binds receivers to the app (`alipay.trade.royalty.relation.bind`); binding one again is no error.
    /// - Parameters:
    ///   - outRequestNo: the merchant's number for the call, 1 to 64 characters.
    ///   - receivers: at least one.
    /// - Returns: `result_code` (`SUCCESS`).
    /// - Throws: `PaymentError.invalidRequest` before sending; `.providerRejected` with Alipay's `sub_code`.
    @discardableResult
    public func bindRoyaltyRelation(outRequestNo: String, receivers: [Alipay.RoyaltyReceiver]) async throws -> String {
        try await relationCall("alipay.trade.royalty.relation.bind", outRequestNo, receivers)
    }

    /// Unbinds receivers (`alipay.trade.royalty.relation.unbind`).
    @discardableResult
    public func unbindRoyaltyRelation(outRequestNo: String, receivers: [Alipay.RoyaltyReceiver]) async throws -> String {
        try await relationCall("alipay.trade.royalty.relation.unbind", outRequestNo, receivers)
    }

    private func relationCall(_ method: String, _ outRequestNo: String, _ receivers: [Alipay.RoyaltyReceiver]) async throws -> String {
        try Self.checkRequestNo(outRequestNo)
        guard !receivers.isEmpty else { throw PaymentError(.invalidRequest, provider: .alipay, "\(method) needs at least one receiver") }
        for receiver in receivers {
            guard Alipay.RoyaltyReceiver.types.contains(receiver.type), !receiver.account.isEmpty else {
                throw PaymentError(.invalidRequest, provider: .alipay, "a receiver is a userId, loginName or openId with an account")
            }
        }
        let node = try await call(method, biz: ["out_request_no": outRequestNo, "receiver_list": receivers.map(\.biz)])
        return node["result_code"] as? String ?? "SUCCESS"
    }

    /// A page of the app's bound receivers (`alipay.trade.royalty.relation.batchquery`).
    /// - Parameters: pageNumber: from 1; pageSize: 1 to 100.
    public func royaltyRelations(outRequestNo: String, pageNumber: Int = 1, pageSize: Int = 20) async throws
        -> Alipay.RoyaltyRelationPage
    {
        try Self.checkRequestNo(outRequestNo)
        guard pageNumber >= 1, (1...100).contains(pageSize) else {
            throw PaymentError(.invalidRequest, provider: .alipay, "page_num is at least 1 and page_size 1 to 100")
        }
        let node = try await call(
            "alipay.trade.royalty.relation.batchquery",
            biz: ["out_request_no": outRequestNo, "page_num": pageNumber, "page_size": pageSize])
        return Alipay.RoyaltyRelationPage(node: node)
    }

    /// The `biz_content` of a settle request, checked (``settle(outRequestNo:tradeNo:shares:finish:mode:)``).
    /// - Throws: `PaymentError.invalidRequest`: no shares without `finish`, more receivers than the
    ///   mode allows (5 sync, 50 async), an amount not more than zero or not CNY.
    public static func settleBiz(
        outRequestNo: String, tradeNo: String, shares: [Alipay.RoyaltyShare], finish: Bool, mode: Alipay.RoyaltyMode
    ) throws -> [String: Any] {
        try checkRequestNo(outRequestNo)
        guard !tradeNo.isEmpty else { throw PaymentError(.invalidRequest, provider: .alipay, "a settle needs the trade_no") }
        guard !shares.isEmpty || finish else {
            throw PaymentError(
                .invalidRequest, provider: .alipay, "a settle needs royalty_parameters, or royalty_finish to end the trade's")
        }
        guard shares.count <= mode.maxReceivers else {
            throw PaymentError(
                .invalidRequest, provider: .alipay,
                "a \(mode.rawValue) settle pays at most \(mode.maxReceivers) receivers, not \(shares.count)")
        }
        for share in shares {
            guard share.amount.currency == .cny, share.amount.isPositive else {
                throw PaymentError(.invalidRequest, provider: .alipay, "each royalty amount is more than 0 CNY")
            }
            guard Alipay.RoyaltyReceiver.types.contains(share.transInType), !share.transIn.isEmpty else {
                throw PaymentError(.invalidRequest, provider: .alipay, "trans_in_type is userId, loginName or openId, with trans_in")
            }
        }
        var biz: [String: Any] = [
            "out_request_no": outRequestNo, "trade_no": tradeNo, "royalty_parameters": shares.map(\.biz), "royalty_mode": mode.rawValue,
        ]
        if finish { biz["extend_params"] = ["royalty_finish": "true"] }
        return biz
    }

    /// Settles part of a paid trade to bound receivers (`alipay.trade.order.settle`). Sent again
    /// with the same `outRequestNo` and body, Alipay answers the same settle.
    /// - Parameters:
    ///   - outRequestNo: the merchant's number, 1 to 64 characters.
    ///   - tradeNo: Alipay's `trade_no` of a trade created with `royalty_freeze`.
    ///   - shares: `royalty_parameters`; empty with `finish` only ends the trade's settling.
    ///   - finish: `extend_params.royalty_finish`: what is left unfreezes to the merchant.
    ///   - mode: `royalty_mode`.
    /// - Returns: `trade_no` and `settle_no` (the details come from ``settleQuery(settleNo:)``).
    /// - Throws: as ``settleBiz(outRequestNo:tradeNo:shares:finish:mode:)``; `.providerRejected` with Alipay's `sub_code`.
    public func settle(
        outRequestNo: String, tradeNo: String, shares: [Alipay.RoyaltyShare], finish: Bool = false, mode: Alipay.RoyaltyMode = .sync
    ) async throws -> Alipay.Settle {
        let biz = try Self.settleBiz(outRequestNo: outRequestNo, tradeNo: tradeNo, shares: shares, finish: finish, mode: mode)
        let node = try await call("alipay.trade.order.settle", biz: biz)
        let settle = try Alipay.Settle(node: node)
        return Alipay.Settle(
            outRequestNo: outRequestNo, tradeNo: settle.tradeNo ?? tradeNo, settleNo: settle.settleNo, operationDate: nil,
            details: settle.details)
    }

    /// A settle by Alipay's number (`alipay.trade.order.settle.query`).
    /// - Throws: `.providerRejected` (`RESOURCE_NOT_FOUND`) when Alipay has no such settle.
    public func settleQuery(settleNo: String) async throws -> Alipay.Settle {
        try Alipay.Settle(node: try await call("alipay.trade.order.settle.query", biz: ["settle_no": settleNo]))
    }

    /// A settle by the merchant's number and the trade (`alipay.trade.order.settle.query`).
    public func settleQuery(outRequestNo: String, tradeNo: String) async throws -> Alipay.Settle {
        let settle = try Alipay.Settle(
            node: try await call("alipay.trade.order.settle.query", biz: ["out_request_no": outRequestNo, "trade_no": tradeNo]))
        guard settle.outRequestNo == nil || settle.outRequestNo == outRequestNo else {
            throw PaymentError(
                .malformedMessage, provider: .alipay,
                "the settle query answered about \(settle.outRequestNo!.prefix(64)), not \(outRequestNo)")
        }
        return settle
    }

    /// What of a trade is still frozen for settling (`alipay.trade.order.onsettle.query`, `unsettled_amount`).
    public func unsettledAmount(tradeNo: String) async throws -> Money {
        let node = try await call("alipay.trade.order.onsettle.query", biz: ["trade_no": tradeNo])
        guard let text = node["unsettled_amount"] as? String, let amount = try? Money(decimal: text, currency: .cny) else {
            throw PaymentError(.malformedMessage, provider: .alipay, "alipay.trade.order.onsettle.query answered without unsettled_amount")
        }
        return amount
    }

    /// The app's account balance (`alipay.fund.account.query`, `account_type` `ACCTRANS_ACCOUNT`):
    /// what transfers are paid from.
    /// - Parameters:
    ///   - alipayUserID: the merchant's own user id (2088…, its seller id).
    ///   - accountType: which balance (`ACCTRANS_ACCOUNT`, the one transfers are paid from).
    public func fundAccount(alipayUserID: String?, accountType: String = "ACCTRANS_ACCOUNT") async throws -> Alipay.FundAccount {
        var biz: [String: Any] = ["account_type": accountType]
        if let alipayUserID { biz["alipay_user_id"] = alipayUserID }
        return try Alipay.FundAccount(node: try await call("alipay.fund.account.query", biz: biz))
    }

    static func checkRequestNo(_ number: String) throws {
        guard !number.isEmpty, number.utf8.count <= 64 else {
            throw PaymentError(.invalidRequest, provider: .alipay, "out_request_no must be 1 to 64 characters")
        }
    }
}

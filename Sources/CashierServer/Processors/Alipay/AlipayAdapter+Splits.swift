import Alipay
import Cashier
import CashierStore
import Foundation

/// Profit sharing (分账) for the direct merchant's app: receivers are the app's royalty relations
/// (`alipay.trade.royalty.relation.bind` / `unbind`), a split is an **async** `alipay.trade.order.settle`
/// (up to 50 receivers, each paid or failed on its own) on a trade placed with
/// `extend_params.royalty_freeze`, found by `alipay.trade.order.settle.query`, and its result
/// arrives as `alipay.trade.order.settle.notify` at the app's application gateway. Alipay takes
/// shares back through a refund's `refund_royalty_parameters`, which is not built: returns are refused.
extension AlipayAdapter: Splitting {
    /// Alipay takes royalties back only with a refund (`refund_royalty_parameters`, not built).
    var takesReturns: Bool { false }

    var splitMerchantID: String { configuration.appID }

    func addReceiver(_ receiver: StoredReceiver, name: String?) async throws {
        try await client.bindRoyaltyRelation(
            outRequestNo: String(receiver.id.prefix(64)),
            receivers: [.init(type: receiver.type, account: receiver.account, name: name, memo: receiver.customRelation)])
    }

    func removeReceiver(_ receiver: StoredReceiver) async throws {
        try await client.unbindRoyaltyRelation(
            outRequestNo: String(("U" + receiver.id).prefix(64)), receivers: [.init(type: receiver.type, account: receiver.account)])
    }

    func sendSplit(_ split: StoredSplit) async throws -> SplitProgress {
        let shares = split.shares.map { share in
            Alipay.RoyaltyShare(
                transInType: share.type, transIn: share.account, amount: Money(minorUnits: share.amountMinor, currency: .cny),
                description: share.description.isEmpty ? nil : share.description)
        }
        let settle = try await client.settle(
            outRequestNo: split.outOrderNo, tradeNo: split.transactionID, shares: shares, finish: split.finish, mode: .async)
        // Only ending the trade's settling: done once accepted. Shares are PROCESSING until the query or the notification says more.
        guard !shares.isEmpty else { return SplitProgress(status: .finished, providerState: "FINISHED", providerOrderID: settle.settleNo) }
        return SplitProgress(status: .processing, providerState: "PROCESSING", providerOrderID: settle.settleNo)
    }

    func splitProgress(_ split: StoredSplit) async throws -> SplitProgress? {
        do {
            return Self.progress(try await client.settleQuery(outRequestNo: split.outOrderNo, tradeNo: split.transactionID))
        } catch let error as PaymentError where ["RESOURCE_NOT_FOUND", "ACQ.TRADE_NOT_EXIST"].contains(error.providerCode ?? "") {
            return nil
        }
    }

    func sendSplitReturn(_ splitReturn: StoredSplitReturn, of split: StoredSplit) async throws -> SplitReturnProgress {
        throw Self.returnsUnsupported
    }

    func splitReturnProgress(_ splitReturn: StoredSplitReturn, of split: StoredSplit) async throws -> SplitReturnProgress? {
        throw Self.returnsUnsupported
    }

    static var returnsUnsupported: PaymentError {
        PaymentError(
            .providerRejected, provider: .alipay,
            "Alipay takes royalties back through a refund's refund_royalty_parameters, which is not built: split returns are unsupported",
            providerCode: "UNSUPPORTED", providerMessage: "支付宝分账回退须通过退款的refund_royalty_parameters（未实现）")
    }

    func unsplitAmount(of payment: StoredPayment) async throws -> Money {
        guard let tradeNo = payment.transactionID, !tradeNo.isEmpty else {
            throw PaymentError(.invalidRequest, provider: .alipay, "payment \(payment.outTradeNo) has no trade_no: it was not paid")
        }
        return try await client.unsettledAmount(tradeNo: tradeNo)
    }

    func splitEvents(_ message: InboundMessage) async throws -> [ProviderEvent] {
        let notification = try Alipay.SettleNotification.verify(
            message.body, publicKey: configuration.alipayPublicKey, appID: configuration.appID)
        return [
            .split(
                SplitReport(
                    provider: .alipay, merchantID: notification.appID, outOrderNo: notification.settle.outRequestNo ?? "",
                    progress: Self.progress(notification.settle), notificationID: notification.notifyID))
        ]
    }

    /// A settle's details read as progress: finished once every share is `SUCCESS` or `FAIL`.
    static func progress(_ settle: Alipay.Settle) -> SplitProgress {
        let shares = settle.details.map { detail in
            SplitProgress.ShareResult(
                type: detail.transInType ?? "userId", account: detail.transIn,
                result: detail.state == "SUCCESS" ? .succeeded : detail.state == "FAIL" ? .closed : .pending,
                failReason: detail.errorDescription ?? detail.errorCode, detailID: detail.detailID)
        }
        let done = settle.details.allSatisfy(\.isFinal)
        return SplitProgress(
            status: done ? .finished : .processing, providerState: done ? "FINISHED" : "PROCESSING", providerOrderID: settle.settleNo,
            shares: shares)
    }

    /// The app's account balance (`alipay.fund.account.query`): what transfers are paid from.
    /// - Throws: `.invalidConfiguration` without the merchant's seller id (its Alipay user id).
    func fundBalance() async throws -> Money {
        guard let user = configuration.sellerID, !user.isEmpty else {
            throw PaymentError(
                .invalidConfiguration, provider: .alipay, "alipay.fund.account.query needs the merchant's Alipay user id (seller_id, 2088…)"
            )
        }
        return try await client.fundAccount(alipayUserID: user).available
    }
}

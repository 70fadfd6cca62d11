import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay's profit sharing (分账) through the v3 APIs: receivers added and deleted under the
/// merchant's app, split requests sent as `orders` (`unfreeze_unsplit` when the split finishes the
/// order) or — a finish with no shares — as `orders/unfreeze`, returns from `MERCHANT_ID`
/// receivers, and the unsplit amount. WeChat notifies receivers only, so the paying merchant
/// learns where a request stands by asking (``splitProgress(_:)``).
extension WeChatV3Adapter: Splitting {
    var splitMerchantID: String { configuration.merchant.mchID }

    func addReceiver(_ receiver: StoredReceiver, name: String?) async throws {
        try await Self.refusingLocally {
            try await client.addProfitSharingReceiver(
                WeChatPay.V3.ProfitSharingReceiver(
                    appID: configuration.appID, type: .init(rawValue: receiver.type), account: receiver.account, name: name,
                    relationType: receiver.relationType, customRelation: receiver.customRelation))
        }
    }

    func removeReceiver(_ receiver: StoredReceiver) async throws {
        try await Self.refusingLocally {
            try await client.deleteProfitSharingReceiver(
                WeChatPay.V3.ProfitSharingReceiver(
                    appID: configuration.appID, type: .init(rawValue: receiver.type), account: receiver.account,
                    relationType: receiver.relationType))
        }
    }

    func sendSplit(_ split: StoredSplit) async throws -> SplitProgress {
        try await Self.refusingLocally { try await shareOrUnfreeze(split) }
    }

    private func shareOrUnfreeze(_ split: StoredSplit) async throws -> SplitProgress {
        if split.finish && split.shares.isEmpty {
            let order = try await client.unfreezeProfitSharing(
                transactionID: split.transactionID, outOrderNo: split.outOrderNo, description: split.description)
            return Self.progress(order, of: split)
        }
        let request = WeChatPay.V3.ProfitSharingOrderRequest(
            appID: configuration.appID, transactionID: split.transactionID, outOrderNo: split.outOrderNo,
            receivers: split.shares.map {
                .init(type: .init(rawValue: $0.type), account: $0.account, amount: $0.amountMinor, description: $0.description)
            }, unfreezeUnsplit: split.finish)
        return Self.progress(try await client.createProfitSharingOrder(request), of: split)
    }

    func splitProgress(_ split: StoredSplit) async throws -> SplitProgress? {
        do {
            return Self.progress(
                try await client.profitSharingOrder(outOrderNo: split.outOrderNo, transactionID: split.transactionID), of: split)
        } catch let error as PaymentError where Self.notFound(error) {
            return nil
        }
    }

    func sendSplitReturn(_ splitReturn: StoredSplitReturn, of split: StoredSplit) async throws -> SplitReturnProgress {
        let request = WeChatPay.V3.ProfitSharingReturnRequest(
            outOrderNo: split.outOrderNo, outReturnNo: splitReturn.outReturnNo, returnMchID: splitReturn.account,
            amount: splitReturn.amount.minorUnits, description: splitReturn.description)
        return try await Self.refusingLocally { Self.progress(try await client.createProfitSharingReturn(request)) }
    }

    func splitReturnProgress(_ splitReturn: StoredSplitReturn, of split: StoredSplit) async throws -> SplitReturnProgress? {
        do {
            return Self.progress(try await client.profitSharingReturn(outReturnNo: splitReturn.outReturnNo, outOrderNo: split.outOrderNo))
        } catch let error as PaymentError where Self.notFound(error) {
            return nil
        }
    }

    func unsplitAmount(of payment: StoredPayment) async throws -> Money {
        guard let transactionID = payment.transactionID else {
            throw PaymentError(.invalidRequest, provider: .wechatV3, "payment \(payment.outTradeNo) has no transaction_id: it was not paid")
        }
        let fen = try await client.profitSharingUnsplitAmount(transactionID: transactionID)
        return Money(minorUnits: fen, currency: payment.amount.currency)
    }

    /// WeChat's profit-sharing bill of `date` (分账账单) as lines: each share to a receiver and each
    /// return from one; what an unfreeze gave back to the merchant itself is no share and is left
    /// out. A day with no bill (`NO_STATEMENT_EXIST`: WeChat moved nothing that day) is `[]`, not
    /// `nil`: WeChat keeps the bill, there was nothing in it.
    func splitBill(date: String) async throws -> [SplitBillLine]? {
        let bill: WeChatPay.V3.ProfitSharingBill
        do {
            bill = try await client.profitSharingBill(date: date)
        } catch let error as PaymentError where error.code == .providerRejected && error.providerCode == "NO_STATEMENT_EXIST" {
            return []
        }
        return bill.lines.compactMap { line in
            switch line.kind {
            case .unfreeze: nil
            case .share:
                SplitBillLine(
                    kind: .share, outOrderNo: line.outOrderNo, outReturnNo: nil, account: line.receiverAccount, amountMinor: line.amount,
                    state: line.state)
            case .return:
                SplitBillLine(
                    kind: .return, outOrderNo: line.outOrderNo, outReturnNo: line.outReturnNo, account: line.receiverAccount,
                    amountMinor: line.amount, state: line.state)
            }
        }
    }

    /// Runs `call`, a refusal of the library's before anything was sent (`.invalidRequest`: a
    /// number, amount or description WeChat would refuse) thrown as the refusal WeChat would
    /// answer (`.providerRejected`, `PARAM_ERROR`): ``Splitting`` reads any other error as an
    /// answer not known, and nothing was sent.
    static func refusingLocally<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as PaymentError where error.code == .invalidRequest {
            throw PaymentError(
                .providerRejected, provider: .wechatV3, "refused before sending: \(error.message)", providerCode: "PARAM_ERROR",
                providerMessage: error.message)
        }
    }

    /// WeChat's answer for a request or return it does not know.
    private static func notFound(_ error: PaymentError) -> Bool {
        error.code == .providerRejected && (error.providerCode == "RESOURCE_NOT_EXISTS" || error.providerCode == "NOT_FOUND")
    }

    /// Cashier's view of a profit-sharing order: `PROCESSING` → processing, `FINISHED` → finished,
    /// and each of the split's receivers' results (an unfreeze's own line, the merchant's, is not a share).
    static func progress(_ order: WeChatPay.V3.ProfitSharingOrder, of split: StoredSplit) -> SplitProgress {
        let named = Set(split.shares.map { $0.type + "/" + $0.account })
        let shares = order.receivers.filter { named.contains($0.type.rawValue + "/" + $0.account) }.map { receiver in
            let result: StoredSplit.Share.Result =
                switch receiver.result {
                case .success: .succeeded
                case .closed: .closed
                default: .pending
                }
            return SplitProgress.ShareResult(
                type: receiver.type.rawValue, account: receiver.account, result: result, failReason: receiver.failReason,
                detailID: receiver.detailID)
        }
        return SplitProgress(
            status: order.state == .finished ? .finished : .processing, providerState: order.state.rawValue,
            providerOrderID: order.orderID.isEmpty ? nil : order.orderID, shares: shares)
    }

    /// Cashier's view of a return: `PROCESSING` pending, `SUCCESS` succeeded, `FAILED` failed (with `fail_reason`).
    static func progress(_ answer: WeChatPay.V3.ProfitSharingReturn) -> SplitReturnProgress {
        let status: StoredSplitReturn.Status =
            switch answer.result {
            case .success: .succeeded
            case .failed: .failed
            default: .pending
            }
        return SplitReturnProgress(
            status: status, providerState: answer.result.rawValue, providerReturnID: answer.returnID.isEmpty ? nil : answer.returnID,
            failureReason: answer.failReason)
    }
}

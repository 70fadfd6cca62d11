import Alipay
import Cashier
import CashierStore
import Foundation

/// Transfers to Alipay accounts (单笔转账) for the direct merchant's app: paid at once, or
/// `DEALING` and found by the query. A transfer's `openid` is the payee's Alipay user id
/// (`2088…`, `ALIPAY_USER_ID`) or open id (`ALIPAY_OPEN_ID`); Alipay transfers cannot be cancelled.
extension AlipayAdapter: Transferring {
    var transferMerchantID: String { configuration.appID }
    var transferAppID: String { configuration.appID }

    func sendTransfer(_ transfer: StoredTransfer, notifyURL: String, reports: [(type: String, content: String)], perception: String?)
        async throws -> TransferProgress
    {
        let payee = Alipay.Client.Payee(
            identity: transfer.openID, identityType: transfer.openID.hasPrefix("2088") ? "ALIPAY_USER_ID" : "ALIPAY_OPEN_ID",
            name: transfer.userName)
        return Self.progress(
            try await client.uniTransfer(outBizNo: transfer.outBillNo, amount: transfer.amount, payee: payee, title: transfer.remark))
    }

    func transferProgress(_ transfer: StoredTransfer) async throws -> TransferProgress? {
        do {
            let found = try await client.transferQuery(outBizNo: transfer.outBillNo)
            guard found.amount == nil || found.amount == transfer.amount else {
                throw PaymentError(.amountMismatch, provider: .alipay, "transfer \(transfer.outBillNo) is for \(found.amount!)")
            }
            return Self.progress(found)
        } catch let error as PaymentError where error.providerCode == "ORDER_NOT_EXIST" {
            return nil
        }
    }

    func cancelTransfer(_ transfer: StoredTransfer) async throws -> TransferProgress {
        throw PaymentError(
            .providerRejected, provider: .alipay, "Alipay transfers cannot be cancelled", providerCode: "UNSUPPORTED",
            providerMessage: "支付宝转账不支持撤销")
    }

    static func progress(_ transfer: Alipay.FundTransfer) -> TransferProgress {
        let status: StoredTransfer.Status =
            switch transfer.status {
            case "SUCCESS": .succeeded
            case "FAIL", "REFUND": .failed
            case "DEALING": .processing
            default: .pending
            }
        return TransferProgress(
            status: status, providerState: transfer.status, providerBillNo: transfer.orderID, failureReason: transfer.failReason)
    }
}

import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay's merchant transfers (商家转账, 2025) through the v3 APIs, for the direct merchant.
extension WeChatV3Adapter: Transferring {
    var transferMerchantID: String { configuration.merchant.mchID }
    var transferAppID: String { configuration.appID }

    func sendTransfer(_ transfer: StoredTransfer, notifyURL: String, reports: [(type: String, content: String)], perception: String?)
        async throws -> TransferProgress
    {
        let request = WeChatPay.V3.TransferBillRequest(
            appID: transfer.appID, outBillNo: transfer.outBillNo, sceneID: transfer.scene, openID: transfer.openID,
            amount: transfer.amount.minorUnits, remark: transfer.remark, userName: transfer.userName, notifyURL: notifyURL,
            userRecvPerception: perception, reportInfos: reports.map { .init(type: $0.type, content: $0.content) })
        return Self.progress(try await client.createTransferBill(request))
    }

    func transferProgress(_ transfer: StoredTransfer) async throws -> TransferProgress? {
        do {
            let bill = try await client.transferBill(outBillNo: transfer.outBillNo)
            guard bill.amount == nil || bill.amount == transfer.amount.minorUnits else {
                throw PaymentError(.amountMismatch, provider: .wechatV3, "bill \(transfer.outBillNo) is for \(bill.amount ?? 0) fen")
            }
            return Self.progress(bill)
        } catch let error as PaymentError where error.providerCode == "NOT_FOUND" {
            return nil
        }
    }

    func cancelTransfer(_ transfer: StoredTransfer) async throws -> TransferProgress {
        Self.progress(try await client.cancelTransferBill(outBillNo: transfer.outBillNo))
    }

    /// Cashier's status for a bill's state.
    static func progress(_ bill: WeChatPay.V3.TransferBill) -> TransferProgress {
        let status: StoredTransfer.Status =
            switch bill.state {
            case .waitUserConfirm: .waitingForPayee
            case .transfering, .canceling: .processing
            case .success: .succeeded
            case .fail: .failed
            case .cancelled: .cancelled
            default: .pending  // ACCEPTED, PROCESSING: accepted, not yet waiting for the payee
            }
        return TransferProgress(
            status: status, providerState: bill.state.rawValue, providerBillNo: bill.transferBillNo.isEmpty ? nil : bill.transferBillNo,
            packageInfo: bill.packageInfo, failureReason: bill.failReason)
    }

    /// A `MCHTRANSFER.BILL.FINISHED` notification, verified as every v3 notification (the signature
    /// over the raw body first, a serial not held yet downloading the certificates at most once a
    /// minute, then the resource decrypted with the APIv3 key) and read as the bill it names.
    func transferEvents(_ message: InboundMessage) async throws -> [ProviderEvent] {
        let notification = try await openNotification(message)
        let event = try WeChatPay.V3.TransferBillEvent(notification)
        return [
            .transfer(
                TransferReport(
                    provider: .wechatV3, merchantID: event.bill.mchID ?? "", outBillNo: event.bill.outBillNo,
                    amountMinor: event.bill.amount ?? 0, progress: Self.progress(event.bill), notificationID: event.notificationID))
        ]
    }
}

/// The notify path of WeChat Pay's transfer notifications (``TransferService/notifyPath``):
/// verified by the direct merchant's v3 adapter, answered as every v3 notification.
struct WeChatTransferNotifications: NotificationSource {
    let adapter: WeChatV3Adapter

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] { try await adapter.transferEvents(message) }
    func reply(_ outcome: NotificationOutcome) -> NotificationReply { adapter.reply(outcome) }
    func metricName(refund: Bool) -> String { "wechat_v3_transfer" }
}

import Cashier
import Foundation

extension WeChatPay.V3 {
    /// A `MCHTRANSFER.BILL.FINISHED` notification's resource, from a ``Notification`` already
    /// verified and decrypted: a transfer bill that ended (`SUCCESS`, `FAIL`, `CANCELLED`).
    ///
    /// ```swift
    /// let notification = try WeChatPay.V3.Notification.open(body: body, headers: headers, keys: keys, apiV3Key: key)
    /// let event = try WeChatPay.V3.TransferBillEvent(notification)
    /// ```
    public struct TransferBillEvent: Sendable, Equatable {
        /// The one event type transfer bills are notified with.
        public static let eventType = "MCHTRANSFER.BILL.FINISHED"

        /// The notification's `id`.
        public let notificationID: String
        /// The bill as the resource gives it (`mch_id`, `transfer_amount`, `openid`, `fail_reason`, …).
        public let bill: TransferBill

        /// Reads a verified notification's resource.
        /// - Throws: `PaymentError.malformedMessage` when it is not a transfer bill notification,
        ///   or names no merchant or amount.
        public init(_ notification: Notification) throws {
            guard notification.eventType == Self.eventType else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV3, "\(notification.eventType.prefix(40)) is not a transfer bill notification")
            }
            let bill = try TransferBill.decode(notification.plaintext)
            guard bill.mchID?.isEmpty == false, bill.amount != nil, !bill.transferBillNo.isEmpty else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV3, "the resource names no mch_id, transfer_amount or transfer_bill_no")
            }
            notificationID = notification.id
            self.bill = bill
        }
    }
}

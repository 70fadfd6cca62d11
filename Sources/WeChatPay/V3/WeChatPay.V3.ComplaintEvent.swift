import Cashier
import Foundation

extension WeChatPay.V3 {
    /// A complaint notification's resource (`COMPLAINT.CREATE`, `COMPLAINT.STATE_CHANGE`), from a
    /// ``Notification`` already verified and decrypted: which complaint, and what happened to it.
    /// The notification says no more than that; the complaint itself is read with
    /// ``Client/complaint(id:)``.
    ///
    /// ```swift
    /// let notification = try WeChatPay.V3.Notification.open(body: body, headers: headers, keys: keys, apiV3Key: key)
    /// let event = try WeChatPay.V3.ComplaintEvent(notification)
    /// let complaint = try await client.complaint(id: event.complaintID)
    /// ```
    public struct ComplaintEvent: Sendable, Equatable {
        /// What set the notification off (`action_type`).
        public struct ActionType: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The payer complained.
            public static let createComplaint = ActionType(rawValue: "CREATE_COMPLAINT")
            /// The payer complained again (a repeat complaint).
            public static let continueComplaint = ActionType(rawValue: "CONTINUE_COMPLAINT")
            /// The payer wrote.
            public static let userResponse = ActionType(rawValue: "USER_RESPONSE")
            /// WeChat wrote.
            public static let responseByPlatform = ActionType(rawValue: "RESPONSE_BY_PLATFORM")
            /// The merchant refunded.
            public static let sellerRefund = ActionType(rawValue: "SELLER_REFUND")
            /// The merchant answered (in the merchant platform).
            public static let merchantResponse = ActionType(rawValue: "MERCHANT_RESPONSE")
            /// The merchant said it is handled.
            public static let merchantConfirmComplete = ActionType(rawValue: "MERCHANT_CONFIRM_COMPLETE")
            /// The payer asked WeChat to step in.
            public static let userApplyPlatformService = ActionType(rawValue: "USER_APPLY_PLATFORM_SERVICE")
            /// The payer no longer wants WeChat to step in.
            public static let userCancelPlatformService = ActionType(rawValue: "USER_CANCEL_PLATFORM_SERVICE")
            /// WeChat finished stepping in.
            public static let platformServiceFinished = ActionType(rawValue: "PLATFORM_SERVICE_FINISHED")
            /// The merchant agreed to the refund asked for.
            public static let merchantApproveRefund = ActionType(rawValue: "MERCHANT_APPROVE_REFUND")
            /// The merchant refused it.
            public static let merchantRejectRefund = ActionType(rawValue: "MERCHANT_REJECT_REFUND")
            /// The refund arrived.
            public static let refundSuccess = ActionType(rawValue: "REFUND_SUCCESS")

            /// Every action WeChat documents.
            public static let documented: [ActionType] = [
                .createComplaint, .continueComplaint, .userResponse, .responseByPlatform, .sellerRefund, .merchantResponse,
                .merchantConfirmComplete, .userApplyPlatformService, .userCancelPlatformService, .platformServiceFinished,
                .merchantApproveRefund, .merchantRejectRefund, .refundSuccess,
            ]
        }

        /// The two event types complaint notifications come as.
        public static let eventTypes: Set<String> = ["COMPLAINT.CREATE", "COMPLAINT.STATE_CHANGE"]

        /// The notification's `id` (repeats of one notification keep it).
        public let notificationID: String
        /// `COMPLAINT.CREATE` or `COMPLAINT.STATE_CHANGE`.
        public let eventType: String
        /// `complaint_id`.
        public let complaintID: String
        /// `action_type`.
        public let actionType: ActionType
        /// `out_trade_no`, which notifications of the first version carried and some still do.
        public let outTradeNo: String?

        /// Reads a verified notification's resource.
        /// - Parameter notification: a notification ``Notification/open(body:headers:keys:apiV3Key:now:)`` opened.
        /// - Throws: `PaymentError.malformedMessage` when it is not a complaint notification.
        public init(_ notification: Notification) throws {
            guard Self.eventTypes.contains(notification.eventType) else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV3, "\(notification.eventType.prefix(40)) is not a complaint notification")
            }
            struct Resource: Decodable {
                let complaint_id: String
                let action_type: String?
                let out_trade_no: String?
            }
            guard let resource = try? JSONDecoder().decode(Resource.self, from: Data(notification.plaintext)),
                !resource.complaint_id.isEmpty
            else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the resource names no complaint_id")
            }
            notificationID = notification.id
            eventType = notification.eventType
            complaintID = resource.complaint_id
            // A COMPLAINT.CREATE of the first version named no action: it is the complaint's creation.
            actionType = ActionType(rawValue: resource.action_type ?? ActionType.createComplaint.rawValue)
            outTradeNo = resource.out_trade_no
        }
    }
}

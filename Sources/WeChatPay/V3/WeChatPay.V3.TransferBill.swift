import Cashier
import Foundation

extension WeChatPay.V3 {
    /// A merchant transfer bill (商家转账, `/v3/fund-app/mch-transfer/transfer-bills`), as the
    /// create, cancel and query answers give it.
    ///
    /// A bill moves `ACCEPTED → PROCESSING → WAIT_USER_CONFIRM → TRANSFERING → SUCCESS | FAIL`;
    /// from any state that is not final the merchant may cancel it (`CANCELING → CANCELLED`). In
    /// `WAIT_USER_CONFIRM` it carries the ``packageInfo`` the app hands to the payer's WeChat
    /// (`wx.requestMerchantTransfer`); unconfirmed for 24 hours it fails (`OVERDUE_CLOSE`).
    public struct TransferBill: Sendable, Equatable {
        /// A bill's `state`.
        public struct State: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// Accepted, not yet processed.
            public static let accepted = State(rawValue: "ACCEPTED")
            /// Locking the funds.
            public static let processing = State(rawValue: "PROCESSING")
            /// Waiting for the payee to confirm in WeChat (with ``TransferBill/packageInfo``).
            public static let waitUserConfirm = State(rawValue: "WAIT_USER_CONFIRM")
            /// Confirmed; the money is moving.
            public static let transfering = State(rawValue: "TRANSFERING")
            /// The payee has the money.
            public static let success = State(rawValue: "SUCCESS")
            /// It failed (see ``TransferBill/failReason``); the funds are back.
            public static let fail = State(rawValue: "FAIL")
            /// The merchant's cancel is under way.
            public static let canceling = State(rawValue: "CANCELING")
            /// Cancelled; the funds are back.
            public static let cancelled = State(rawValue: "CANCELLED")

            /// Every state WeChat documents.
            public static let documented: [State] = [
                .accepted, .processing, .waitUserConfirm, .transfering, .success, .fail, .canceling, .cancelled,
            ]

            /// `SUCCESS`, `FAIL` or `CANCELLED`: nothing moves the bill again.
            public var isFinal: Bool { self == .success || self == .fail || self == .cancelled }
            public var description: String { rawValue }
        }

        /// `out_bill_no`, the merchant's number.
        public let outBillNo: String
        /// `transfer_bill_no`, WeChat's number.
        public let transferBillNo: String
        public let state: State
        /// `package_info`, only in `WAIT_USER_CONFIRM`.
        public let packageInfo: String?
        /// `fail_reason`, e.g. `OVERDUE_CLOSE`, `MCH_CANCEL`, `NAME_NOT_CORRECT`.
        public let failReason: String?
        /// `create_time` (RFC 3339).
        public let createTime: String?
        /// `update_time` (RFC 3339).
        public let updateTime: String?
        /// `mch_id` (the query answer's spelling; `mchid` accepted too).
        public let mchID: String?
        /// `appid`.
        public let appID: String?
        /// `transfer_amount`, in fen (the query answer).
        public let amount: Int64?
        /// `openid` (the query answer).
        public let openID: String?
        /// `transfer_remark` (the query answer).
        public let remark: String?

        public init(
            outBillNo: String, transferBillNo: String, state: State, packageInfo: String? = nil, failReason: String? = nil,
            createTime: String? = nil, updateTime: String? = nil, mchID: String? = nil, appID: String? = nil, amount: Int64? = nil,
            openID: String? = nil, remark: String? = nil
        ) {
            self.outBillNo = outBillNo
            self.transferBillNo = transferBillNo
            self.state = state
            self.packageInfo = packageInfo
            self.failReason = failReason
            self.createTime = createTime
            self.updateTime = updateTime
            self.mchID = mchID
            self.appID = appID
            self.amount = amount
            self.openID = openID
            self.remark = remark
        }

        private struct Wire: Decodable {
            let out_bill_no: String
            let transfer_bill_no: String?
            let state: String
            let package_info: String?
            let fail_reason: String?
            let create_time: String?
            let update_time: String?
            let mch_id: String?
            let mchid: String?
            let appid: String?
            let transfer_amount: Int64?
            let openid: String?
            let transfer_remark: String?
        }

        /// Decodes a create, cancel or query answer, or a `MCHTRANSFER.BILL.FINISHED` resource.
        /// - Throws: `PaymentError.malformedMessage` for anything else.
        public static func decode(_ data: some Collection<UInt8>) throws -> TransferBill {
            guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(data)), !wire.out_bill_no.isEmpty, !wire.state.isEmpty
            else { throw PaymentError(.malformedMessage, provider: .wechatV3, "not a transfer bill document") }
            return TransferBill(
                outBillNo: wire.out_bill_no, transferBillNo: wire.transfer_bill_no ?? "", state: State(rawValue: wire.state),
                packageInfo: wire.package_info, failReason: wire.fail_reason, createTime: wire.create_time, updateTime: wire.update_time,
                mchID: wire.mch_id ?? wire.mchid, appID: wire.appid, amount: wire.transfer_amount, openID: wire.openid,
                remark: wire.transfer_remark)
        }
    }
}

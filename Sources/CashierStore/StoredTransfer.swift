public import Cashier
public import Foundation

/// A transfer out of the merchant's provider account to a person (WeChat Pay's 商家转账): reserved
/// here under its `out_bill_no` before the provider is asked, then moved by the provider's word
/// (its answers, notifications and queries) by compare-and-set; a final status never changes.
public struct StoredTransfer: Sendable, Equatable {
    /// Where a transfer stands.
    public enum Status: String, Sendable, CaseIterable, Codable {
        /// Reserved; the provider has not (yet) accepted it, or its answer was lost.
        case pending
        /// Accepted; waiting for the payee to confirm with the `package_info`.
        case waitingForPayee = "waiting_for_payee"
        /// Confirmed (or cancelling); the provider is moving the money.
        case processing
        /// The payee has the money.
        case succeeded
        /// The provider refused or failed it; nothing moved.
        case failed
        /// Cancelled by the merchant before the payee confirmed; nothing moved.
        case cancelled

        /// `succeeded`, `failed` or `cancelled`: nothing moves it again.
        public var isFinal: Bool { self == .succeeded || self == .failed || self == .cancelled }
    }

    public let id: String
    /// The sub-merchant whose key made it; `nil` for the platform's.
    public let merchant: String?
    /// `wechat.v3`.
    public let provider: String
    /// The merchant's number at the provider (`out_bill_no`): one bill, however often sent.
    public let outBillNo: String
    /// The provider's number (`transfer_bill_no`), once it answered.
    public let providerBillNo: String?
    public let appID: String
    public let openID: String
    public let amount: Money
    public let remark: String
    /// The provider's scene (`transfer_scene_id`).
    public let scene: String
    /// The payee's real name, kept to send the same request again; never returned by the API.
    public let userName: String?
    public let status: Status
    /// The provider's own state (`WAIT_USER_CONFIRM`, `TRANSFERING`, …).
    public let providerState: String?
    /// What the app hands to the payee's WeChat, while it waits for them.
    public let packageInfo: String?
    public let failureReason: String?
    public let version: Int64
    public let createdAt: Date
    public let updatedAt: Date
    public let finishedAt: Date?

    public init(
        id: String, merchant: String?, provider: String, outBillNo: String, providerBillNo: String?, appID: String, openID: String,
        amount: Money, remark: String, scene: String, userName: String?, status: Status, providerState: String?, packageInfo: String?,
        failureReason: String?, version: Int64, createdAt: Date, updatedAt: Date, finishedAt: Date?
    ) {
        self.id = id
        self.merchant = merchant
        self.provider = provider
        self.outBillNo = outBillNo
        self.providerBillNo = providerBillNo
        self.appID = appID
        self.openID = openID
        self.amount = amount
        self.remark = remark
        self.scene = scene
        self.userName = userName
        self.status = status
        self.providerState = providerState
        self.packageInfo = packageInfo
        self.failureReason = failureReason
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }

    /// `true` when `other` asks for the same transfer (a retry), whatever its id or status.
    public func isSameRequest(as other: NewTransfer) -> Bool {
        merchant == other.merchant && provider == other.provider && appID == other.appID && openID == other.openID
            && amount == other.amount && remark == other.remark && scene == other.scene && userName == other.userName
    }
}

/// A transfer to reserve (``TransferRecords/reserveTransfer(_:now:)``).
public struct NewTransfer: Sendable, Equatable {
    public let merchant: String?
    public let provider: String
    public let outBillNo: String
    public let appID: String
    public let openID: String
    public let amount: Money
    public let remark: String
    public let scene: String
    public let userName: String?

    public init(
        merchant: String?, provider: String, outBillNo: String, appID: String, openID: String, amount: Money, remark: String, scene: String,
        userName: String?
    ) {
        self.merchant = merchant
        self.provider = provider
        self.outBillNo = outBillNo
        self.appID = appID
        self.openID = openID
        self.amount = amount
        self.remark = remark
        self.scene = scene
        self.userName = userName
    }
}

/// What the provider says of a transfer now (``TransferRecords/moveTransfer(_:to:now:)``).
public struct TransferProgress: Sendable, Equatable {
    public let status: StoredTransfer.Status
    public let providerState: String
    public let providerBillNo: String?
    public let packageInfo: String?
    public let failureReason: String?

    public init(
        status: StoredTransfer.Status, providerState: String, providerBillNo: String?, packageInfo: String? = nil,
        failureReason: String? = nil
    ) {
        self.status = status
        self.providerState = providerState
        self.providerBillNo = providerBillNo
        self.packageInfo = packageInfo
        self.failureReason = failureReason
    }
}

/// What ``TransferRecords/moveTransfer(_:to:now:)`` did.
public enum TransferMoved: Sendable, Equatable {
    /// The transfer changed (its status, or what the provider said of it): before and after.
    case changed(from: StoredTransfer, to: StoredTransfer)
    /// Nothing changed: it said the same, or the transfer had ended already.
    case unchanged(StoredTransfer)

    public var transfer: StoredTransfer {
        switch self {
        case .changed(_, let after): after
        case .unchanged(let transfer): transfer
        }
    }
}

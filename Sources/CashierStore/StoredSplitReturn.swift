public import Cashier
public import Foundation

/// A return (WeChat Pay's 分账回退): money taken back from one receiver's share of a split,
/// reserved against that share before the provider is asked, moved once by its answer.
public struct StoredSplitReturn: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable, Codable {
        case pending
        /// The money is back with the merchant.
        case succeeded
        /// Refused or failed; the share keeps it.
        case failed

        public var isFinal: Bool { self != .pending }
    }

    public let id: String
    public let splitID: String
    public let orderID: String
    /// The merchant's number at the provider (`out_return_no`).
    public let outReturnNo: String
    /// The receiver the money comes back from (WeChat's `return_mchid`).
    public let account: String
    public let amount: Money
    public let description: String
    public let status: Status
    public let providerReturnID: String?
    public let providerState: String?
    public let failureReason: String?
    public let createdAt: Date
    public let updatedAt: Date

    public init(
        id: String, splitID: String, orderID: String, outReturnNo: String, account: String, amount: Money, description: String,
        status: Status, providerReturnID: String?, providerState: String?, failureReason: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.splitID = splitID
        self.orderID = orderID
        self.outReturnNo = outReturnNo
        self.account = account
        self.amount = amount
        self.description = description
        self.status = status
        self.providerReturnID = providerReturnID
        self.providerState = providerState
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What the provider says of a return now.
public struct SplitReturnProgress: Sendable, Equatable {
    public let status: StoredSplitReturn.Status
    public let providerState: String
    public let providerReturnID: String?
    public let failureReason: String?

    public init(status: StoredSplitReturn.Status, providerState: String, providerReturnID: String?, failureReason: String? = nil) {
        self.status = status
        self.providerState = providerState
        self.providerReturnID = providerReturnID
        self.failureReason = failureReason
    }
}

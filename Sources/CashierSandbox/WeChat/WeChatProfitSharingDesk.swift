import Foundation

/// What the v3 sandbox keeps of profit sharing (分账): each merchant's receivers, each share
/// request (分账单) with its receivers' results, each return (回退单), the transactions whose
/// sharing has ended, and the clock and delay by which requests finish. Held by
/// ``WeChatV3Sandbox``; the rules live in ``WeChatV3Sandbox`` `+ProfitSharing`.
struct WeChatProfitSharingDesk: Sendable {
    /// A receiver a merchant added.
    struct Receiver: Sendable {
        let mchID: String
        let appID: String
        let type: String
        let account: String
        /// Decrypted (the sandbox holds the platform key).
        let name: String?
        let relationType: String
        let customRelation: String?
    }

    /// One receiver's share in a request.
    struct Share: Sendable {
        let type: String
        let account: String
        let amount: Int64
        let description: String
        let detailID: String
        var result = "PENDING"
        var failReason: String?
        var finished: Date?
    }

    /// A share request, or an unfreeze (``unfreeze`` set: its one share is the rest, back to the merchant).
    struct Order: Sendable {
        let mchID: String
        let appID: String?
        let transactionID: String
        let outOrderNo: String
        let orderID: String
        let created: Date
        var shares: [Share]
        let unfreezeUnsplit: Bool
        let unfreeze: Bool
        /// What makes a repeat the same request: everything but the ciphertext of names.
        let fingerprint: [String]
        var state = "PROCESSING"
    }

    /// A return from a receiver's share.
    struct Return: Sendable {
        let mchID: String
        let outOrderNo: String
        let orderID: String
        let outReturnNo: String
        let returnID: String
        let returnMchID: String
        let amount: Int64
        let description: String
        let created: Date
        var result = "PROCESSING"
        var failReason: String?
        var finished: Date?

        var fingerprint: [String] { [outOrderNo, returnMchID, String(amount), description] }
    }

    /// Receivers by `mchid/type/account`.
    var receivers: [String: Receiver] = [:]
    /// Requests by `mchid/out_order_no`.
    var orders: [String: Order] = [:]
    /// Returns by `mchid/out_return_no`.
    var returns: [String: Return] = [:]
    /// Transactions whose sharing has ended (`unfreeze_unsplit`, or an unfreeze), by `transaction_id`.
    var ended: Set<String> = []
    /// The most a transaction may give to receivers other than the merchant, in basis points of what was paid.
    var maxRatio: Int64 = 3000
    /// How long after it was accepted (by ``clock``) a request or return finishes.
    var delay: TimeInterval = 60
    /// The sandbox clock for profit sharing.
    var clock: @Sendable () -> Date = { Date() }

    /// The most requests one transaction may have.
    static let maxRequests = 50
    /// The most receivers one request may name.
    static let maxReceivers = 50

    static func key(_ parts: String...) -> String { parts.joined(separator: "/") }

    /// Requests on `transactionID`, oldest first.
    func orders(of transactionID: String) -> [Order] {
        orders.values.filter { $0.transactionID == transactionID }.sorted { ($0.created, $0.outOrderNo) < ($1.created, $1.outOrderNo) }
    }

    /// What returns from `account` in request `outOrderNo` hold (accepted or done).
    func returned(_ mchID: String, outOrderNo: String, account: String) -> Int64 {
        returns.values.filter { $0.mchID == mchID && $0.outOrderNo == outOrderNo && $0.returnMchID == account && $0.result != "FAILED" }
            .reduce(0) { $0 + $1.amount }
    }

    /// What the shares of `transactionID` hold now: every share not closed, less returns (unfreezes excluded).
    func sharedHeld(_ transactionID: String) -> Int64 {
        orders(of: transactionID).filter { !$0.unfreeze }.reduce(0) { total, order in
            total
                + order.shares.filter { $0.result != "CLOSED" }.reduce(0) {
                    $0 + $1.amount - returned(order.mchID, outOrderNo: order.outOrderNo, account: $1.account)
                }
        }
    }

    /// What has gone to receivers other than `mchID` (not closed), for the ratio.
    func sharedToOthers(_ transactionID: String, mchID: String) -> Int64 {
        orders(of: transactionID).filter { !$0.unfreeze }.flatMap(\.shares).filter { $0.result != "CLOSED" && $0.account != mchID }
            .reduce(0) { $0 + $1.amount }
    }
}

/// A profit-sharing receiver as the sandbox holds it.
public struct SandboxProfitSharingReceiver: Sendable, Codable, Equatable {
    public let mchid: String
    public let appid: String
    public let type: String
    public let account: String
    /// Decrypted from what was sent.
    public let name: String?
    public let relation_type: String
}

/// A profit-sharing request (or unfreeze) as the sandbox holds it.
public struct SandboxProfitSharingOrder: Sendable, Codable, Equatable {
    public struct Share: Sendable, Codable, Equatable {
        public let type: String
        public let account: String
        public let amount: Int64
        public let result: String
        public let fail_reason: String?
    }

    public let mchid: String
    public let transaction_id: String
    public let out_order_no: String
    public let order_id: String
    public let state: String
    public let unfreeze_unsplit: Bool
    /// An `orders/unfreeze` request.
    public let unfreeze: Bool
    public let receivers: [Share]
}

/// A profit-sharing return as the sandbox holds it.
public struct SandboxProfitSharingReturn: Sendable, Codable, Equatable {
    public let mchid: String
    public let out_order_no: String
    public let out_return_no: String
    public let return_mchid: String
    public let amount: Int64
    public let result: String
    public let fail_reason: String?
}

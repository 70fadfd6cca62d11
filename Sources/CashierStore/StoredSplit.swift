public import Cashier
public import Foundation

/// A profit-sharing request on a paid order (WeChat Pay's 分账, Alipay's 分账 / order settle):
/// shares of the payment to receivers, reserved here against the payment under its
/// `out_order_no` before the provider is asked — so splits and refunds together never move more
/// than was paid — then moved by the provider's answers and queries by compare-and-set. A request
/// with `finish` set also ends the order's sharing (WeChat's `unfreeze_unsplit`): what is left
/// unfreezes to the merchant; one with `finish` set and no shares does only that.
public struct StoredSplit: Sendable, Equatable {
    /// Where a split request stands.
    public enum Status: String, Sendable, CaseIterable, Codable {
        /// Reserved; the provider has not (yet) accepted it, or its answer was lost.
        case pending
        /// Accepted; the provider is moving the shares (WeChat's `PROCESSING`).
        case processing
        /// The provider finished it: each share's ``Share/result`` says whether it arrived.
        case finished
        /// The provider refused it; nothing moved and the reservation is released.
        case failed

        /// `finished` or `failed`: nothing moves it again (returns move its shares' `returned`).
        public var isFinal: Bool { self == .finished || self == .failed }
    }

    /// One receiver's share in a split request.
    public struct Share: Sendable, Equatable, Codable {
        /// Where one share stands.
        public enum Result: String, Sendable, Codable, CaseIterable {
            case pending
            /// The receiver has it.
            case succeeded
            /// It did not arrive (WeChat's `CLOSED`); the amount stayed with the merchant.
            case closed
        }

        /// The provider's receiver type (`MERCHANT_ID`, `PERSONAL_OPENID`, Alipay's `userId`, `loginName`).
        public let type: String
        public let account: String
        public let amountMinor: Int64
        public let description: String
        public var result: Result
        public var failReason: String?
        /// The provider's number for this share (`detail_id`).
        public var detailID: String?
        /// What returns have taken back from the receiver so far.
        public var returnedMinor: Int64
        /// What returns still being asked for would take back.
        public var returningMinor: Int64

        public init(
            type: String, account: String, amountMinor: Int64, description: String, result: Result = .pending, failReason: String? = nil,
            detailID: String? = nil, returnedMinor: Int64 = 0, returningMinor: Int64 = 0
        ) {
            self.type = type
            self.account = account
            self.amountMinor = amountMinor
            self.description = description
            self.result = result
            self.failReason = failReason
            self.detailID = detailID
            self.returnedMinor = returnedMinor
            self.returningMinor = returningMinor
        }

        /// What this share holds of the payment now: all of it until it is closed, less returns.
        public var heldMinor: Int64 { result == .closed ? 0 : amountMinor - returnedMinor }
        /// What a new return may still take back: a share that arrived, less returns made or being made.
        public var returnableMinor: Int64 { result == .succeeded ? amountMinor - returnedMinor - returningMinor : 0 }
    }

    public let id: String
    public let orderID: String
    public let paymentID: String
    /// The sub-merchant whose key made it; `nil` for the platform's.
    public let merchant: String?
    /// The payment's provider (`wechat.v3`, `alipay`).
    public let provider: String
    /// The merchant's number at the provider (`out_order_no`, Alipay's `out_request_no`).
    public let outOrderNo: String
    /// The payment's number at the provider (`transaction_id`, `trade_no`).
    public let transactionID: String
    /// The provider's number for the request (`order_id`, `settle_no`), once it answered.
    public let providerOrderID: String?
    public let shares: [Share]
    /// The sum of the shares.
    public let amount: Money
    /// Whether this request ends the order's sharing (the rest unfreezes to the merchant).
    public let finish: Bool
    public let description: String
    public let status: Status
    /// The provider's own state (`PROCESSING`, `FINISHED`, …).
    public let providerState: String?
    public let failureReason: String?
    public let version: Int64
    public let createdAt: Date
    public let updatedAt: Date
    public let finishedAt: Date?

    public init(
        id: String, orderID: String, paymentID: String, merchant: String?, provider: String, outOrderNo: String, transactionID: String,
        providerOrderID: String?, shares: [Share], amount: Money, finish: Bool, description: String, status: Status,
        providerState: String?, failureReason: String?, version: Int64, createdAt: Date, updatedAt: Date, finishedAt: Date?
    ) {
        self.id = id
        self.orderID = orderID
        self.paymentID = paymentID
        self.merchant = merchant
        self.provider = provider
        self.outOrderNo = outOrderNo
        self.transactionID = transactionID
        self.providerOrderID = providerOrderID
        self.shares = shares
        self.amount = amount
        self.finish = finish
        self.description = description
        self.status = status
        self.providerState = providerState
        self.failureReason = failureReason
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }

    /// What the split holds of its payment now: every share not closed, less what returns took back;
    /// nothing once it failed.
    public var heldMinor: Int64 { status == .failed ? 0 : shares.reduce(0) { $0 + $1.heldMinor } }

    /// `true` when `other` asks for the same split (a retry), whatever its id or status.
    public func isSameRequest(as other: NewSplit) -> Bool {
        orderID == other.orderID && merchant == other.merchant && finish == other.finish && description == other.description
            && shares.map { [$0.type, $0.account, String($0.amountMinor), $0.description] }
                == other.shares.map { [$0.type, $0.account, String($0.amountMinor), $0.description] }
    }
}

/// A split to reserve (``SplitRecords/reserveSplit(_:now:)``): against the order's succeeded payment.
public struct NewSplit: Sendable, Equatable {
    public let id: String
    public let orderID: String
    public let merchant: String?
    public let outOrderNo: String
    public let shares: [StoredSplit.Share]
    public let finish: Bool
    public let description: String

    public init(
        id: String, orderID: String, merchant: String?, outOrderNo: String, shares: [StoredSplit.Share], finish: Bool, description: String
    ) {
        self.id = id
        self.orderID = orderID
        self.merchant = merchant
        self.outOrderNo = outOrderNo
        self.shares = shares
        self.finish = finish
        self.description = description
    }
}

/// What the provider says of a split request now (``SplitRecords/moveSplit(_:to:now:)``).
public struct SplitProgress: Sendable, Equatable {
    /// One share's result, by receiver.
    public struct ShareResult: Sendable, Equatable {
        public let type: String
        public let account: String
        public let result: StoredSplit.Share.Result
        public let failReason: String?
        public let detailID: String?

        public init(type: String, account: String, result: StoredSplit.Share.Result, failReason: String? = nil, detailID: String? = nil) {
            self.type = type
            self.account = account
            self.result = result
            self.failReason = failReason
            self.detailID = detailID
        }
    }

    public let status: StoredSplit.Status
    public let providerState: String
    public let providerOrderID: String?
    public let shares: [ShareResult]
    public let failureReason: String?

    public init(
        status: StoredSplit.Status, providerState: String, providerOrderID: String?, shares: [ShareResult] = [],
        failureReason: String? = nil
    ) {
        self.status = status
        self.providerState = providerState
        self.providerOrderID = providerOrderID
        self.shares = shares
        self.failureReason = failureReason
    }
}

/// What ``SplitRecords/reserveSplit(_:now:)`` found: a split made now, or the one made before under the same number.
public enum SplitReservation: Sendable, Equatable {
    case reserved(StoredSplit)
    case existing(StoredSplit)

    public var split: StoredSplit {
        switch self {
        case .reserved(let split), .existing(let split): split
        }
    }
}

/// What ``SplitRecords/moveSplit(_:to:now:)`` did.
public enum SplitMoved: Sendable, Equatable {
    case changed(from: StoredSplit, to: StoredSplit)
    case unchanged(StoredSplit)
}

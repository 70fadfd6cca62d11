public import Cashier

extension Alipay {
    /// One entry of `alipay.trade.order.settle`'s `royalty_parameters`: an amount of the trade to
    /// one bound receiver (`royalty_type` `transfer`).
    public struct RoyaltyShare: Sendable, Equatable {
        /// `trans_in_type`: `userId`, `loginName` or `openId`.
        public let transInType: String
        /// `trans_in`: the receiver's account.
        public let transIn: String
        /// `amount`, sent in yuan; CNY, more than zero.
        public let amount: Money
        /// `desc`.
        public let description: String?

        public init(transInType: String, transIn: String, amount: Money, description: String? = nil) {
            self.transInType = transInType
            self.transIn = transIn
            self.amount = amount
            self.description = description
        }

        /// The entry, for `royalty_parameters`.
        public var biz: [String: Any] {
            var entry: [String: Any] = [
                "royalty_type": "transfer", "trans_in_type": transInType, "trans_in": transIn, "amount": amount.decimalString,
            ]
            if let description { entry["desc"] = description }
            return entry
        }
    }

    /// `royalty_mode`: how Alipay carries out a settle request. One trade is settled in one mode only.
    public enum RoyaltyMode: String, Sendable, CaseIterable {
        /// All or nothing, answered at once; at most 5 receivers a request and 50 requests a trade.
        case sync
        /// Accepted (`PROCESSING`), each receiver then paid or failed on its own and the result
        /// sent as `alipay.trade.order.settle.notify`; at most 50 receivers a request, 300 a trade.
        case async

        /// The most receivers one request may name.
        public var maxReceivers: Int { self == .sync ? 5 : 50 }
        /// The most settle requests one trade may have.
        public var maxRequests: Int { self == .sync ? 50 : 300 }
    }
}

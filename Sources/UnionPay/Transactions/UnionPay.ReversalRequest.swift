public import Cashier
public import Foundation

extension UnionPay {
    /// Money back for a consume, to `backTransReq.do`: an undo (消费撤销, `txnType=31`, the whole
    /// amount, the same day) or a refund (退货, `txnType=04`, part or all, for months). Each is a
    /// transaction of its own — a **new** `orderId` and `txnTime` — naming the consume by its
    /// `queryId` (`origQryId`). UnionPay's `00` answer means accepted; the result comes by back
    /// notification or query.
    ///
    /// ```swift
    /// let refund = try UnionPay.ReversalRequest(kind: .refund, orderID: "R20261206001", originalQueryID: paid.queryID,
    ///                                            amount: part, backURL: notifyURL, time: Date())
    /// ```
    public struct ReversalRequest: Sendable, Equatable {
        /// Which reversal.
        public enum Kind: String, Sendable, Hashable {
            /// 消费撤销: the consume's full amount, before the day's cut-off.
            case undo = "31"
            /// 退货: up to what is left of the consume.
            case refund = "04"
        }

        public let kind: Kind
        /// The reversal's own `orderId`.
        public let orderID: String
        /// The reversal's own `txnTime`.
        public let transactionTime: String
        /// `origQryId`: the consume's `queryId`.
        public let originalQueryID: String
        public let amount: Money
        public let backURL: URL
        public var reserved: String?
        /// `channelType`: `07` as UnionPay's demos send for back transactions.
        public var channelType = "07"

        public init(
            kind: Kind, orderID: String, originalQueryID: String, amount: Money, backURL: URL, time: Date, reserved: String? = nil
        ) throws {
            try Identifiers.checkOrderID(orderID)
            _ = try Identifiers.amountText(amount)
            try Identifiers.checkURL(backURL, "backUrl")
            guard (1...64).contains(originalQueryID.utf8.count),
                originalQueryID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") })
            else { throw UnionPay.failure(.invalidRequest, "origQryId must be the consume's queryId") }
            if let reserved { try Identifiers.checkEchoed(reserved, "reqReserved") }
            self.kind = kind
            self.orderID = orderID
            self.transactionTime = Identifiers.transactionTime(time)
            self.originalQueryID = originalQueryID
            self.amount = amount
            self.backURL = backURL
            self.reserved = reserved
        }

        public func fields(merchantID: String) throws -> [String: String] {
            var fields = [
                "encoding": "UTF-8", "txnType": kind.rawValue, "txnSubType": "00", "bizType": "000201", "channelType": channelType,
                "accessType": "0", "merId": merchantID, "orderId": orderID, "txnTime": transactionTime, "origQryId": originalQueryID,
                "txnAmt": try Identifiers.amountText(amount), "currencyCode": UnionPay.currencyCodeCNY, "backUrl": backURL.absoluteString,
            ]
            if let reserved { fields["reqReserved"] = reserved }
            return fields
        }
    }
}

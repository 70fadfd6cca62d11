public import Cashier

extension UnionPay {
    /// A verified back notification (后台通知), posted form-encoded to the request's `backUrl`.
    ///
    /// UnionPay notifies successful transactions — consumes, undos and refunds — and sends again
    /// until the merchant answers HTTP 200, so the same notification arrives more than once: act
    /// on ``queryID`` at most once. ``verify(_:verifier:merchantID:)`` parses the body (read the raw
    /// body: a `backUrl` with a query string of its own must not mix those parameters in), checks
    /// the signature, `merId` and currency; compare with the stored order by
    /// ``check(orderID:amount:)``, record it durably, and only then answer 200 with
    /// ``acknowledgement``. UnionPay asks merchants to confirm back transactions by query too.
    ///
    /// ```swift
    /// let notification = try UnionPay.Notification.verify(body, verifier: verifier, merchantID: merID)
    /// try notification.check(orderID: stored.orderID, amount: stored.total)
    /// ```
    public struct Notification: Sendable, Equatable {
        /// The body answered with HTTP 200 once the notification is recorded.
        public static let acknowledgement = "ok"

        /// What the notification is about, from `txnType`.
        public enum Kind: String, Sendable, Hashable {
            case consume = "01"
            case refund = "04"
            case undo = "31"
        }

        public let kind: Kind
        public let merchantID: String
        /// The transaction's `orderId` (a refund's or undo's own, not the consume's).
        public let orderID: String
        public let transactionTime: String
        /// `queryId`: UnionPay's id of this transaction; what a consume's undo or refund names.
        public let queryID: String
        /// `origQryId`: for an undo or refund, the consume's `queryId`.
        public let originalQueryID: String?
        public let respCode: ResponseCode
        public let respMsg: String
        /// `txnAmt`, in fen.
        public let amount: Money
        public let settleAmount: Money?
        /// `settleDate`, MMDD.
        public let settleDate: String?
        public let traceNo: String?
        public let traceTime: String?
        /// `reqReserved`, echoed.
        public let reserved: String?
        /// Every field, as verified.
        public let fields: [String: String]

        /// `respCode` `00` or `A6`.
        public var isSuccess: Bool { respCode.isSuccess }

        /// Verifies and parses a notification's form body.
        /// - Throws: `PaymentError` `.malformedMessage`, `.signatureMismatch`, `.unknownKey`,
        ///   `.merchantMismatch` (another `merId`), `.currencyMismatch` (not `156`).
        public static func verify(_ body: some Collection<UInt8>, verifier: Verifier, merchantID: String) throws -> Notification {
            // Blank fields are not part of what UnionPay signed ("如果字段的值为空，则不上送").
            let fields = try FormBody.parse(body).filter { !$0.value.isEmpty }
            try verifier.verify(fields)
            return try Notification(verified: fields, merchantID: merchantID)
        }

        init(verified fields: [String: String], merchantID: String) throws {
            func required(_ name: String) throws -> String {
                guard let value = fields[name], !value.isEmpty else {
                    throw UnionPay.failure(.malformedMessage, "the notification has no \(name)")
                }
                return value
            }
            guard try required("merId") == merchantID else {
                throw UnionPay.failure(.merchantMismatch, "merId is not this merchant's (\(merchantID))")
            }
            guard let kind = Kind(rawValue: try required("txnType")) else {
                throw UnionPay.failure(.malformedMessage, "txnType \(fields["txnType"]?.prefix(4) ?? "") is not a consume, undo or refund")
            }
            if let currency = fields["currencyCode"], currency != UnionPay.currencyCodeCNY {
                throw UnionPay.failure(.currencyMismatch, "currencyCode is \(currency.prefix(4)), not 156 (CNY)")
            }
            guard let amount = Identifiers.amount(try required("txnAmt")) else {
                throw UnionPay.failure(.malformedMessage, "txnAmt is not an amount in fen")
            }
            self.kind = kind
            self.merchantID = merchantID
            orderID = try required("orderId")
            transactionTime = try required("txnTime")
            queryID = try required("queryId")
            originalQueryID = fields["origQryId"]
            if kind != .consume, originalQueryID == nil {
                throw UnionPay.failure(.malformedMessage, "a refund's or undo's notification has no origQryId")
            }
            respCode = ResponseCode(rawValue: try required("respCode"))
            respMsg = fields["respMsg"] ?? ""
            self.amount = amount
            settleAmount = Identifiers.amount(fields["settleAmt"])
            settleDate = fields["settleDate"]
            traceNo = fields["traceNo"]
            traceTime = fields["traceTime"]
            reserved = fields["reqReserved"]
            self.fields = fields
        }

        /// Checks the order number and amount against the stored transaction.
        /// - Throws: `PaymentError` `.malformedMessage` (another order) or `.amountMismatch`.
        public func check(orderID expected: String, amount expectedAmount: Money) throws {
            guard orderID == expected else {
                throw UnionPay.failure(.malformedMessage, "the notification is for \(orderID.prefix(40)), not \(expected)")
            }
            guard expectedAmount.currency == amount.currency, expectedAmount.minorUnits == amount.minorUnits else {
                throw UnionPay.failure(.amountMismatch, "the notification says \(amount) but \(expected) is for \(expectedAmount)")
            }
        }
    }
}

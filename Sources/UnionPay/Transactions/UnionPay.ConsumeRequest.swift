public import Cashier
public import Foundation

extension UnionPay {
    /// A consume (消费) for the app: `txnType=01`, `txnSubType=01`, `bizType=000201`,
    /// `channelType=08` (mobile), sent to `appTransReq.do`; UnionPay answers a `tn` for the
    /// app's plugin. The same request serves Apple Pay (`UPAPayPlugin`) and 云闪付
    /// (`UPPaymentControl`): only the plugin the app starts differs.
    ///
    /// ```swift
    /// let request = try UnionPay.ConsumeRequest(orderID: "C20261206001", amount: total, backURL: notifyURL, time: Date())
    /// ```
    public struct ConsumeRequest: Sendable, Equatable {
        /// `orderId`: the merchant's number, 8 to 40 letters and digits.
        public let orderID: String
        /// `txnTime`: when the order was sent, `YYYYMMDDhhmmss` Beijing time (with `orderId`,
        /// what names the transaction in queries).
        public let transactionTime: String
        /// `txnAmt`, in fen.
        public let amount: Money
        /// `backUrl`: where UnionPay posts the back notification.
        public let backURL: URL
        /// `frontUrl`, for front (web) flows; unused by the plugins.
        public var frontURL: URL?
        /// `payTimeout`: after this instant the payer can no longer pay.
        public var payTimeout: Date?
        /// `reqReserved`: echoed in answers, notifications and the reconciliation file.
        public var reserved: String?
        /// `orderDesc` (C: "移动支付上送").
        public var orderDescription: String?
        /// `channelType`: `08` mobile (the plugins), `07` PC.
        public var channelType = "08"

        /// - Throws: `PaymentError.invalidRequest` for an `orderId`, amount or URL that breaks
        ///   UnionPay's rules.
        public init(
            orderID: String, amount: Money, backURL: URL, time: Date, frontURL: URL? = nil, payTimeout: Date? = nil,
            reserved: String? = nil,
            orderDescription: String? = nil
        ) throws {
            try Identifiers.checkOrderID(orderID)
            _ = try Identifiers.amountText(amount)
            try Identifiers.checkURL(backURL, "backUrl")
            if let frontURL { try Identifiers.checkURL(frontURL, "frontUrl") }
            if let reserved { try Identifiers.checkEchoed(reserved, "reqReserved") }
            if let orderDescription { try Identifiers.checkEchoed(orderDescription, "orderDesc") }
            self.orderID = orderID
            self.transactionTime = Identifiers.transactionTime(time)
            self.amount = amount
            self.backURL = backURL
            self.frontURL = frontURL
            self.payTimeout = payTimeout
            self.reserved = reserved
            self.orderDescription = orderDescription
        }

        /// The fields to sign, for merchant `merchantID` (`merId`).
        public func fields(merchantID: String) throws -> [String: String] {
            var fields = [
                "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000201", "channelType": channelType,
                "accessType": "0", "merId": merchantID, "orderId": orderID, "txnTime": transactionTime,
                "txnAmt": try Identifiers.amountText(amount), "currencyCode": UnionPay.currencyCodeCNY, "backUrl": backURL.absoluteString,
            ]
            if let frontURL { fields["frontUrl"] = frontURL.absoluteString }
            if let payTimeout { fields["payTimeout"] = Identifiers.transactionTime(payTimeout) }
            if let reserved { fields["reqReserved"] = reserved }
            if let orderDescription { fields["orderDesc"] = orderDescription }
            return fields
        }
    }
}

public import Cashier
public import Foundation

extension WeChatPay.V2 {
    /// A `pay/micropay` request: the payer's payment code, scanned at the counter, pays at once —
    /// or, for larger amounts and new payers, once the payer enters a password (`USERPAYING`).
    /// Payment-code payments have no notification: the merchant queries until the answer is final
    /// and reverses (``Client/reverse(outTradeNo:)``) what is still undecided when it gives up.
    public struct Micropay: Sendable {
        public var body: String
        public var outTradeNo: String
        public var total: Money
        /// The till's (or the merchant server's) IP address.
        public var clientIP: String
        /// The payer's payment code (``WeChatPay/PaymentCode``).
        public var authCode: String
        /// Returned untouched by queries (at most 127 bytes).
        public var attach: String?
        /// `detail`: the goods, as WeChat's JSON.
        public var goods: [GoodsLine]
        /// After this the payer can no longer pay it (`time_expire`).
        public var expiresAt: Date?

        public init(
            body: String, outTradeNo: String, total: Money, clientIP: String, authCode: String, attach: String? = nil,
            goods: [GoodsLine] = [], expiresAt: Date? = nil
        ) {
            self.body = body
            self.outTradeNo = outTradeNo
            self.total = total
            self.clientIP = clientIP
            self.authCode = authCode
            self.attach = attach
            self.goods = goods
            self.expiresAt = expiresAt
        }

        var fields: [(String, String)] {
            var fields = [
                ("body", body), ("out_trade_no", outTradeNo), ("total_fee", String(total.minorUnits)), ("fee_type", total.currency.code),
                ("spbill_create_ip", clientIP), ("auth_code", authCode),
            ]
            fields += UnifiedOrder.optionalFields(attach: attach, goods: goods, expiresAt: expiresAt)
            return fields
        }
    }

    /// What `pay/micropay` answered.
    public enum MicropayAnswer: Sendable, Equatable {
        /// Paid at once.
        case paid(amount: Money, transactionID: String)
        /// `USERPAYING`: the payer is entering a password; query until the answer is final.
        case waiting
        /// `SYSTEMERROR`, `BANKERROR` (or no answer): nobody knows yet; query.
        case unknown(String)
    }
}

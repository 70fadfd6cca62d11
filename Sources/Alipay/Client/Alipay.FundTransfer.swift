public import Cashier

extension Alipay {
    /// A transfer to an Alipay account (`alipay.fund.trans.uni.transfer`), as its answer and
    /// `alipay.fund.trans.common.query` give it.
    public struct FundTransfer: Sendable, Equatable {
        /// `out_biz_no`, the merchant's number: Alipay makes one transfer of it however often asked.
        public let outBizNo: String
        /// `order_id`, Alipay's number.
        public let orderID: String?
        /// `pay_fund_order_id`.
        public let payFundOrderID: String?
        /// `SUCCESS`, `DEALING`, `FAIL`, `REFUND` (paid, then returned), or `INIT`.
        public let status: String
        /// `trans_date` or `pay_date`.
        public let date: String?
        /// `trans_amount`, when the query gives it.
        public let amount: Money?
        /// `fail_reason` or `error_code`, when it failed.
        public let failReason: String?

        public init(
            outBizNo: String, orderID: String?, payFundOrderID: String?, status: String, date: String?, amount: Money?, failReason: String?
        ) {
            self.outBizNo = outBizNo
            self.orderID = orderID
            self.payFundOrderID = payFundOrderID
            self.status = status
            self.date = date
            self.amount = amount
            self.failReason = failReason
        }

        /// `SUCCESS`, `FAIL` or `REFUND`: nothing moves it again.
        public var isFinal: Bool { status == "SUCCESS" || status == "FAIL" || status == "REFUND" }

        /// Reads a response node (already verified).
        /// - Throws: `PaymentError.malformedMessage` when it names no transfer or status, or holds an amount that is not one.
        init(node: [String: Any], outBizNo asked: String) throws {
            guard let status = node["status"] as? String, !status.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the answer has no transfer status")
            }
            let number = node["out_biz_no"] as? String ?? asked
            guard number == asked else {
                throw PaymentError(.malformedMessage, provider: .alipay, "the answer is about transfer \(number.prefix(64)), not \(asked)")
            }
            let amount = try (node["trans_amount"] as? String).map { text -> Money in
                guard let money = try? Money(decimal: text, currency: .cny) else {
                    throw PaymentError(.malformedMessage, provider: .alipay, "trans_amount \(text.prefix(20)) is not an amount")
                }
                return money
            }
            self.init(
                outBizNo: number, orderID: node["order_id"] as? String, payFundOrderID: node["pay_fund_order_id"] as? String,
                status: status, date: node["trans_date"] as? String ?? node["pay_date"] as? String, amount: amount,
                failReason: node["fail_reason"] as? String ?? node["error_code"] as? String)
        }
    }
}

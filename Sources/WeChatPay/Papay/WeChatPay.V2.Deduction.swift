public import Cashier

extension WeChatPay.V2 {
    /// A `pay/pappayapply` request: a deduction (trade type `PAP`) under a signed withholding
    /// contract, the payer absent. WeChat Pay only accepts it; the result comes later, as the
    /// ordinary v2 payment notification (`trade_type` `PAP`) or by
    /// ``Client/papOrderQuery(outTradeNo:)`` (`ACCEPT`, then `SUCCESS` or `PAY_FAIL`).
    public struct Deduction: Sendable, Equatable {
        /// `contract_id`: the contract the payer signed.
        public var contractID: String
        /// `body`: what the payer is charged for.
        public var body: String
        /// `out_trade_no`: the merchant's trade number (a retry sends the same).
        public var outTradeNo: String
        /// `total_fee` in `fee_type`.
        public var total: Money
        /// `spbill_create_ip`: the merchant server's IP address.
        public var clientIP: String
        /// `notify_url`: where the deduction's result is notified.
        public var notifyURL: String
        /// `attach`: returned untouched in the notification (at most 127 bytes).
        public var attach: String?

        /// - Parameters:
        ///   - contractID: `contract_id`, the signed contract.
        ///   - body: `body`, what is charged for.
        ///   - outTradeNo: `out_trade_no`, the merchant's trade number.
        ///   - total: `total_fee` and `fee_type`.
        ///   - clientIP: `spbill_create_ip`, the merchant server's address.
        ///   - notifyURL: `notify_url`, where the result is notified.
        ///   - attach: `attach`, returned untouched.
        public init(
            contractID: String, body: String, outTradeNo: String, total: Money, clientIP: String, notifyURL: String, attach: String? = nil
        ) {
            self.contractID = contractID
            self.body = body
            self.outTradeNo = outTradeNo
            self.total = total
            self.clientIP = clientIP
            self.notifyURL = notifyURL
            self.attach = attach
        }

        var fields: [(String, String)] {
            var fields = [
                ("body", body), ("out_trade_no", outTradeNo), ("total_fee", String(total.minorUnits)), ("fee_type", total.currency.code),
                ("spbill_create_ip", clientIP), ("notify_url", notifyURL), ("trade_type", "PAP"), ("contract_id", contractID),
            ]
            if let attach { fields.append(("attach", attach)) }
            return fields
        }
    }
}

public import Cashier

extension WeChatPay.V3 {
    /// One detail line of the profit-sharing bill (分账账单): a share WeChat moved to a receiver
    /// (业务类型 `分账`), a return from one (`回退`), or what an unfreeze gave back to the merchant
    /// (`解冻给分账方`). Amounts are in fen (the file prints yuan).
    public struct ProfitSharingBillLine: Sendable, Hashable {
        /// 业务类型 as WeChat prints it.
        public enum Kind: String, Sendable, Hashable {
            case share = "分账"
            case `return` = "回退"
            case unfreeze = "解冻给分账方"
        }

        /// 分账发起时间, `yyyy-MM-dd HH:mm:ss` Beijing time.
        public let time: String
        /// 分账发起方: the merchant who sent the request.
        public let initiator: String
        /// 分账方: the merchant whose money was shared.
        public let payer: String
        /// 微信订单号.
        public let transactionID: String
        /// 微信分账/回退单号: WeChat's `order_id` or `return_id`.
        public let orderID: String
        /// 商户分账单号 (`out_order_no`).
        public let outOrderNo: String
        /// 商户回退单号 (`out_return_no`) on a return line, `nil` otherwise.
        public let outReturnNo: String?
        public let kind: Kind
        /// 分账接收方类型 (`MERCHANT_ID`, `PERSONAL_OPENID`, …).
        public let receiverType: String
        /// 分账接收方: the receiver's account (a return: whom it came back from).
        public let receiverAccount: String
        /// 分账金额 in fen.
        public let amount: Int64
        /// 处理状态 (`SUCCESS`, `CLOSED`, …; WeChat lists finished lines only).
        public let state: String
        /// 分账描述.
        public let description: String

        public init(
            time: String, initiator: String, payer: String, transactionID: String, orderID: String, outOrderNo: String,
            outReturnNo: String?, kind: Kind, receiverType: String, receiverAccount: String, amount: Int64, state: String,
            description: String
        ) {
            self.time = time
            self.initiator = initiator
            self.payer = payer
            self.transactionID = transactionID
            self.orderID = orderID
            self.outOrderNo = outOrderNo
            self.outReturnNo = outReturnNo
            self.kind = kind
            self.receiverType = receiverType
            self.receiverAccount = receiverAccount
            self.amount = amount
            self.state = state
            self.description = description
        }
    }
}

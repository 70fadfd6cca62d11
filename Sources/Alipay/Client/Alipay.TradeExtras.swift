public import Cashier
public import Foundation

extension Alipay {
    /// What an order may add to a trade's `biz_content`: when it stops being payable, what comes
    /// back in the notification, and the goods. Empty adds nothing.
    public struct TradeExtras: Sendable, Equatable {
        /// `timeout_express`: the trade closes this long after it is created (Alipay counts whole
        /// minutes, at least one, at most 15 days).
        public var expiresIn: TimeInterval?
        /// `passback_params`: returned untouched in the notification (URL-encoded, at most 512 bytes).
        public var passback: String?
        /// `goods_detail`.
        public var goods: [GoodsLine]
        /// `quit_url` (wap pay): where the cashier's back button takes a payer who leaves without
        /// paying; without it the wap cashier offers no way back to the merchant's page.
        public var quitURL: String?
        /// `extend_params.royalty_freeze`: the paid money stays frozen for settling to royalty
        /// receivers (`alipay.trade.order.settle`); sent only when `true`.
        public var royaltyFreeze: Bool

        public init(
            expiresIn: TimeInterval? = nil, passback: String? = nil, goods: [GoodsLine] = [], quitURL: String? = nil,
            royaltyFreeze: Bool = false
        ) {
            self.expiresIn = expiresIn
            self.passback = passback
            self.goods = goods
            self.quitURL = quitURL
            self.royaltyFreeze = royaltyFreeze
        }

        /// The most `passback_params` carries, once URL-encoded.
        public static let passbackLimit = 512

        /// The fields, for `biz_content`.
        public var biz: [String: Any] {
            var biz: [String: Any] = [:]
            if let expiresIn {
                let minutes = min(max(Int((expiresIn / 60).rounded(.down)), 1), 15 * 24 * 60)
                biz["timeout_express"] = "\(minutes)m"
            }
            if let passback { biz["passback_params"] = FormBody.escape(passback) }
            if let quitURL { biz["quit_url"] = quitURL }
            if royaltyFreeze { biz["extend_params"] = ["royalty_freeze": "true"] }
            if !goods.isEmpty {
                biz["goods_detail"] = goods.map { line -> [String: Any] in
                    ["goods_id": line.id, "goods_name": line.name, "quantity": line.quantity, "price": line.unitPrice.decimalString]
                }
            }
            return biz
        }
    }
}

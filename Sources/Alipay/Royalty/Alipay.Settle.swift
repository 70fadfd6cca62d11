public import Cashier

extension Alipay {
    /// A settle request (`alipay.trade.order.settle`) as Alipay answers it or
    /// `alipay.trade.order.settle.query` reads it.
    public struct Settle: Sendable, Equatable {
        /// `out_request_no`, the merchant's number: Alipay makes one settle of it however often asked.
        public let outRequestNo: String?
        /// `trade_no`.
        public let tradeNo: String?
        /// `settle_no`, Alipay's number for the request.
        public let settleNo: String?
        /// `operation_dt`, when the query gives it.
        public let operationDate: String?
        /// `royalty_detail_list`: one entry per receiver (empty in the settle call's own answer).
        public let details: [RoyaltyDetail]

        public init(outRequestNo: String?, tradeNo: String?, settleNo: String?, operationDate: String?, details: [RoyaltyDetail]) {
            self.outRequestNo = outRequestNo
            self.tradeNo = tradeNo
            self.settleNo = settleNo
            self.operationDate = operationDate
            self.details = details
        }

        /// `true` when every detail is `SUCCESS` or `FAIL` (and there is at least one).
        public var isFinal: Bool { !details.isEmpty && details.allSatisfy(\.isFinal) }

        /// Reads a response node or a notification's `biz_content`.
        /// - Throws: `PaymentError.malformedMessage` for a detail that is not one.
        init(node: [String: Any]) throws {
            self.init(
                outRequestNo: node["out_request_no"] as? String, tradeNo: node["trade_no"] as? String,
                settleNo: node["settle_no"] as? String,
                operationDate: node["operation_dt"] as? String, details: try RoyaltyDetail.list(node["royalty_detail_list"]))
        }
    }

    /// A page of the app's royalty relations (`alipay.trade.royalty.relation.batchquery`).
    public struct RoyaltyRelationPage: Sendable, Equatable {
        public let receivers: [RoyaltyReceiver]
        /// `total_page_num`, `total_record_num`, `current_page_num`, `current_page_size`.
        public let totalPages: Int
        public let totalRecords: Int
        public let pageNumber: Int
        public let pageSize: Int

        public init(receivers: [RoyaltyReceiver], totalPages: Int, totalRecords: Int, pageNumber: Int, pageSize: Int) {
            self.receivers = receivers
            self.totalPages = totalPages
            self.totalRecords = totalRecords
            self.pageNumber = pageNumber
            self.pageSize = pageSize
        }

        init(node: [String: Any]) {
            func number(_ name: String) -> Int { (node[name] as? Int) ?? (node[name] as? String).flatMap { Int($0) } ?? 0 }
            self.init(
                receivers: ((node["receiver_list"] as? [[String: Any]]) ?? []).compactMap(RoyaltyReceiver.init(node:)),
                totalPages: number("total_page_num"), totalRecords: number("total_record_num"), pageNumber: number("current_page_num"),
                pageSize: number("current_page_size"))
        }
    }

    /// The app's account (`alipay.fund.account.query`): what it may transfer from.
    public struct FundAccount: Sendable, Equatable {
        /// `available_amount`.
        public let available: Money
        /// `freeze_amount`, when given.
        public let frozen: Money?

        public init(available: Money, frozen: Money?) {
            self.available = available
            self.frozen = frozen
        }

        /// - Throws: `PaymentError.malformedMessage` without an `available_amount` in yuan.
        init(node: [String: Any]) throws {
            guard let text = node["available_amount"] as? String, let available = try? Money(decimal: text, currency: .cny) else {
                throw PaymentError(.malformedMessage, provider: .alipay, "alipay.fund.account.query answered without available_amount")
            }
            self.init(available: available, frozen: (node["freeze_amount"] as? String).flatMap { try? Money(decimal: $0, currency: .cny) })
        }
    }
}

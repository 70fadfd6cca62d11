public import Cashier
import Foundation

extension Alipay {
    /// One entry of a settle's `royalty_detail_list` (settle query, settle notification): what
    /// became of one receiver's share.
    public struct RoyaltyDetail: Sendable, Equatable {
        /// `operation_type`: `transfer` (or `replenish`, `replenish_refund`, `transfer_refund`).
        public let operationType: String
        public let transInType: String?
        public let transIn: String
        public let transOut: String?
        public let amount: Money
        /// `state`: `SUCCESS`, `FAIL` or `PROCESSING`.
        public let state: String
        /// `detail_id`, Alipay's number for the share.
        public let detailID: String?
        /// `execute_dt`.
        public let executeDate: String?
        /// `error_code` and `error_desc`, when it failed.
        public let errorCode: String?
        public let errorDescription: String?

        public init(
            operationType: String, transInType: String?, transIn: String, transOut: String?, amount: Money, state: String,
            detailID: String?, executeDate: String?, errorCode: String?, errorDescription: String?
        ) {
            self.operationType = operationType
            self.transInType = transInType
            self.transIn = transIn
            self.transOut = transOut
            self.amount = amount
            self.state = state
            self.detailID = detailID
            self.executeDate = executeDate
            self.errorCode = errorCode
            self.errorDescription = errorDescription
        }

        /// `SUCCESS` or `FAIL`: nothing moves it again.
        public var isFinal: Bool { state == "SUCCESS" || state == "FAIL" }

        /// Reads one entry. - Throws: `PaymentError.malformedMessage` without `trans_in`, `state` or an amount in yuan.
        init(node: [String: Any]) throws {
            guard let transIn = node["trans_in"] as? String, let state = node["state"] as? String,
                let text = node["amount"] as? String ?? (node["amount"] as? NSNumber)?.stringValue,
                let amount = try? Money(decimal: text, currency: .cny)
            else { throw PaymentError(.malformedMessage, provider: .alipay, "a royalty detail has no trans_in, state or amount") }
            self.init(
                operationType: node["operation_type"] as? String ?? "transfer", transInType: node["trans_in_type"] as? String,
                transIn: transIn, transOut: node["trans_out"] as? String, amount: amount, state: state,
                detailID: node["detail_id"] as? String, executeDate: node["execute_dt"] as? String,
                errorCode: node["error_code"] as? String, errorDescription: node["error_desc"] as? String)
        }

        /// Reads a `royalty_detail_list`.
        static func list(_ value: Any?) throws -> [RoyaltyDetail] {
            try ((value as? [[String: Any]]) ?? []).map { try RoyaltyDetail(node: $0) }
        }
    }
}

import Cashier
import Foundation

extension WeChatPay.V3 {
    /// A profit-sharing return (分账回退单) as the create and query answers give it: `PROCESSING`,
    /// then `SUCCESS` or `FAILED` with a ``failReason``.
    public struct ProfitSharingReturn: Sendable, Equatable {
        /// A return's `result`.
        public struct Result: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let processing = Result(rawValue: "PROCESSING")
            public static let success = Result(rawValue: "SUCCESS")
            public static let failed = Result(rawValue: "FAILED")
            public var description: String { rawValue }
        }

        public let orderID: String?
        public let outOrderNo: String
        public let outReturnNo: String
        /// `return_id`, WeChat's number.
        public let returnID: String
        public let returnMchID: String
        /// In fen.
        public let amount: Int64
        public let description: String?
        public let result: Result
        /// `fail_reason`: `ACCOUNT_ABNORMAL`, `BALANCE_NOT_ENOUGH`, `TIME_OUT_CLOSED`, `PAYER_ACCOUNT_ABNORMAL`, `INVALID_REQUEST`.
        public let failReason: String?
        public let createTime: String?
        public let finishTime: String?

        private struct Wire: Decodable {
            let order_id: String?
            let out_order_no: String
            let out_return_no: String
            let return_id: String
            let return_mchid: String
            let amount: Int64
            let description: String?
            let result: String
            let fail_reason: String?
            let create_time: String?
            let finish_time: String?
        }

        /// Decodes a create or query answer. - Throws: `PaymentError.malformedMessage` for anything else.
        public static func decode(_ data: some Collection<UInt8>) throws -> ProfitSharingReturn {
            guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(data)), !wire.out_return_no.isEmpty, !wire.result.isEmpty
            else { throw PaymentError(.malformedMessage, provider: .wechatV3, "not a profit-sharing return document") }
            return ProfitSharingReturn(
                orderID: wire.order_id, outOrderNo: wire.out_order_no, outReturnNo: wire.out_return_no, returnID: wire.return_id,
                returnMchID: wire.return_mchid, amount: wire.amount, description: wire.description, result: Result(rawValue: wire.result),
                failReason: wire.fail_reason, createTime: wire.create_time, finishTime: wire.finish_time)
        }
    }
}

import Cashier
import Foundation

extension WeChatPay.V3 {
    /// A profit-sharing order (分账单) as the create, query and unfreeze answers give it:
    /// `PROCESSING` while WeChat moves the shares, `FINISHED` once each receiver's share has its
    /// result (`SUCCESS`, or `CLOSED` with a ``Receiver/failReason``).
    public struct ProfitSharingOrder: Sendable, Equatable {
        /// The order's `state`.
        public struct State: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let processing = State(rawValue: "PROCESSING")
            public static let finished = State(rawValue: "FINISHED")
            public var description: String { rawValue }
        }

        /// A receiver's `result`.
        public struct Result: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let pending = Result(rawValue: "PENDING")
            public static let success = Result(rawValue: "SUCCESS")
            /// It did not arrive (``Receiver/failReason`` says why); the money stays with the merchant.
            public static let closed = Result(rawValue: "CLOSED")
            public var description: String { rawValue }
        }

        /// One receiver's share, as WeChat reports it.
        public struct Receiver: Sendable, Equatable {
            public let type: ProfitSharingReceiver.Kind
            public let account: String
            /// In fen.
            public let amount: Int64
            public let description: String
            public let result: Result
            /// `fail_reason`: `ACCOUNT_ABNORMAL`, `NO_RELATION`, `RECEIVER_HIGH_RISK`, `RECEIVER_REAL_NAME_NOT_VERIFIED`,
            /// `NO_AUTH`, `RECEIVER_RECEIPT_LIMIT`, `PAYER_ACCOUNT_ABNORMAL`, `INVALID_REQUEST`.
            public let failReason: String?
            /// `detail_id`, WeChat's number of this share.
            public let detailID: String?
            public let createTime: String?
            public let finishTime: String?
        }

        public let transactionID: String
        public let outOrderNo: String
        /// `order_id`, WeChat's number.
        public let orderID: String
        public let state: State
        public let receivers: [Receiver]

        private struct Wire: Decodable {
            struct Entry: Decodable {
                let type: String
                let account: String
                let amount: Int64
                let description: String?
                let result: String
                let fail_reason: String?
                let detail_id: String?
                let create_time: String?
                let finish_time: String?
            }
            let transaction_id: String
            let out_order_no: String
            let order_id: String
            let state: String
            let receivers: [Entry]?
        }

        /// Decodes a create, query or unfreeze answer.
        /// - Throws: `PaymentError.malformedMessage` for anything else.
        public static func decode(_ data: some Collection<UInt8>) throws -> ProfitSharingOrder {
            guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(data)), !wire.out_order_no.isEmpty, !wire.state.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "not a profit-sharing order document")
            }
            return ProfitSharingOrder(
                transactionID: wire.transaction_id, outOrderNo: wire.out_order_no, orderID: wire.order_id,
                state: State(rawValue: wire.state),
                receivers: (wire.receivers ?? []).map {
                    Receiver(
                        type: .init(rawValue: $0.type), account: $0.account, amount: $0.amount, description: $0.description ?? "",
                        result: Result(rawValue: $0.result), failReason: $0.fail_reason, detailID: $0.detail_id, createTime: $0.create_time,
                        finishTime: $0.finish_time)
                })
        }
    }
}

public import Cashier

extension UnionPay {
    /// A consume's answer: the `tn` the app hands to `UPAPayPlugin` or `UPPaymentControl`.
    /// `respCode` `00` means only that the order was accepted; payment is learnt by back
    /// notification or query.
    public struct ConsumeAnswer: Sendable, Equatable {
        /// The `tn` (银联受理订单号, 21 digits), trimmed as UnionPay asks.
        public let tn: String
        /// Every field of the verified answer.
        public let fields: [String: String]

        init(_ fields: [String: String]) throws {
            let tn = fields["tn"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard (1...64).contains(tn.utf8.count), tn.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw UnionPay.failure(.malformedMessage, "the consume answer has no numeric tn")
            }
            self.tn = tn
            self.fields = fields
        }
    }

    /// An undo's or refund's answer.
    public struct ReversalAnswer: Sendable, Equatable {
        public enum State: Sendable, Equatable {
            /// `00`: accepted (受理成功); the result follows by notification or query.
            case accepted
            /// `03`/`04`/`05`: UnionPay does not know yet; query the reversal's `orderId`/`txnTime`.
            case inProcess
        }

        public let state: State
        /// The reversal's `queryId`, when the answer carries one.
        public let queryID: String?
        public let respCode: ResponseCode
        public let respMsg: String
        public let fields: [String: String]
    }

    /// What `queryTrans.do` says of a transaction (a consume, undo or refund).
    ///
    /// The answer's `respCode` is about the query; when it is `00`, `origRespCode` is the
    /// transaction's: `00`/`A6` succeeded, `03`/`04`/`05` still in process (ask again: UnionPay
    /// suggests 1, 2, 4, 8, 16, 32 s for back transactions), anything else failed.
    public struct QueryResult: Sendable, Equatable {
        public enum State: Sendable, Equatable {
            case succeeded
            case inProcess
            /// Failed, with `origRespCode` and `origRespMsg`.
            case failed(ResponseCode, String)
            /// `respCode` `34`: UnionPay has no such transaction (yet: a consume whose payer has
            /// not paid may answer so until the payment timeout).
            case notFound
        }

        public let state: State
        /// `queryId`: for a consume, what undo and refund name as `origQryId`.
        public let queryID: String?
        /// `txnAmt`.
        public let amount: Money?
        /// `settleAmt`, `settleDate` (MMDD).
        public let settleAmount: Money?
        public let settleDate: String?
        /// `txnType` of the transaction queried (`01` consume, `04` refund, `31` undo).
        public let transactionType: String?
        public let traceNo: String?
        public let traceTime: String?
        public let fields: [String: String]

        init(_ fields: [String: String]) throws {
            let code = ResponseCode(rawValue: fields["respCode"] ?? "")
            if code == .success {
                let original = ResponseCode(rawValue: fields["origRespCode"] ?? "")
                if original.isSuccess {
                    state = .succeeded
                } else if original.isInProcess {
                    state = .inProcess
                } else if original.rawValue.isEmpty {
                    throw UnionPay.failure(.malformedMessage, "the query answered 00 without origRespCode")
                } else {
                    state = .failed(original, fields["origRespMsg"] ?? "")
                }
            } else if code.isInProcess {
                state = .inProcess
            } else if code == .notFound {
                state = .notFound
            } else {
                throw UnionPay.failure(
                    .providerRejected, "the query was refused (\(fields["respMsg"]?.prefix(60) ?? ""))", respCode: code.rawValue,
                    respMsg: fields["respMsg"])
            }
            queryID = fields["queryId"]
            amount = Identifiers.amount(fields["txnAmt"])
            settleAmount = Identifiers.amount(fields["settleAmt"])
            settleDate = fields["settleDate"]
            transactionType = fields["txnType"]
            traceNo = fields["traceNo"]
            traceTime = fields["traceTime"]
            self.fields = fields
        }
    }
}

public import Cashier
public import Foundation

extension UnionPay {
    /// Calls UnionPay's gateway for one merchant (`merId`): signs each request with the merchant's
    /// certificate, verifies each answer (``Verifier``) and checks that it answers this request —
    /// the same `merId`, `orderId` and `txnTime` — before reading it.
    ///
    /// Errors mirror UnionPay's: a refusal is `PaymentError.providerRejected` with `respCode` as
    /// `providerCode` and `respMsg` as `providerMessage`; no answer is `.transport` (retrying with
    /// the same `orderId` and `txnTime` is safe: UnionPay answers `12` 重复交易 to a second consume,
    /// so query instead).
    ///
    /// ```swift
    /// let client = UnionPay.Client(merchantID: merID, signingKey: key, verifier: verifier, endpoints: .test)
    /// let tn = try await client.consume(request).tn
    /// let status = try await client.query(orderID: request.orderID, transactionTime: request.transactionTime)
    /// ```
    public struct Client: Sendable {
        public let merchantID: String
        public let endpoints: Endpoints
        private let signer: Signer
        private let verifier: Verifier
        private let transport: any HTTPTransport

        public init(
            merchantID: String, signingKey: SigningKey, verifier: Verifier, endpoints: Endpoints = .production,
            transport: any HTTPTransport = URLSessionTransport(), version: Version = .v5_1_0
        ) {
            self.merchantID = merchantID
            self.endpoints = endpoints
            signer = Signer(key: signingKey, version: version)
            self.verifier = verifier
            self.transport = transport
        }

        /// Consume for the app (`appTransReq.do`). - Returns: the `tn`.
        /// - Throws: `PaymentError` — `.providerRejected` with UnionPay's `respCode` (`12` for an
        ///   `orderId`/`txnTime` already used), `.signatureMismatch`, `.replayed` for an answer to
        ///   another request, `.transport`.
        public func consume(_ request: ConsumeRequest) async throws -> ConsumeAnswer {
            let fields = try await call(endpoints.appTransactionURL, try request.fields(merchantID: merchantID), "consume")
            try Self.requireSuccess(fields, "consume")
            return try ConsumeAnswer(fields)
        }

        /// Where a transaction stands (`queryTrans.do`), by its `orderId` and `txnTime`.
        public func query(orderID: String, transactionTime: String) async throws -> QueryResult {
            try Identifiers.checkOrderID(orderID)
            try Identifiers.checkTransactionTime(transactionTime)
            let request = [
                "encoding": "UTF-8", "txnType": "00", "txnSubType": "00", "bizType": "000000", "accessType": "0", "merId": merchantID,
                "orderId": orderID, "txnTime": transactionTime,
            ]
            return try QueryResult(try await call(endpoints.queryURL, request, "query"))
        }

        /// Undo or refund (`backTransReq.do`).
        /// - Throws: `.providerRejected` with `respCode` — `35` no such consume or not in a state
        ///   to reverse, `36` an amount over what is left, `12` this `orderId` already used.
        public func reverse(_ request: ReversalRequest) async throws -> ReversalAnswer {
            let name = request.kind == .undo ? "undo" : "refund"
            let fields = try await call(endpoints.backTransactionURL, try request.fields(merchantID: merchantID), name)
            let code = ResponseCode(rawValue: fields["respCode"] ?? "")
            if !code.isInProcess { try Self.requireSuccess(fields, name) }
            return ReversalAnswer(
                state: code.isInProcess ? .inProcess : .accepted, queryID: fields["queryId"], respCode: code,
                respMsg: fields["respMsg"] ?? "",
                fields: fields)
        }

        /// Downloads a day's reconciliation file (`txnType=76`, `fileType=00`) from the
        /// file-download host. - Parameter settleDate: the settlement day, `MMDD`.
        /// - Returns: the file, or `nil` when UnionPay has none for the day (`98`).
        public func reconciliationFile(settleDate: String, time: Date) async throws -> ReconciliationFile? {
            guard settleDate.utf8.count == 4, settleDate.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw UnionPay.failure(.invalidRequest, "settleDate must be MMDD")
            }
            let request = [
                "encoding": "UTF-8", "txnType": "76", "txnSubType": "01", "bizType": "000000", "accessType": "0", "merId": merchantID,
                "settleDate": settleDate, "txnTime": Identifiers.transactionTime(time), "fileType": "00",
            ]
            let fields = try await call(endpoints.fileDownload, request, "file download", limit: ReconciliationFile.answerLimit)
            if fields["respCode"] == ResponseCode.fileNotFound.rawValue { return nil }
            try Self.requireSuccess(fields, "file download")
            guard let content = fields["fileContent"], !content.isEmpty else {
                throw UnionPay.failure(.malformedMessage, "the file download answered 00 without fileContent")
            }
            return try ReconciliationFile(fileContent: content, fileName: fields["fileName"] ?? "")
        }

        /// Signs `request`, posts it, verifies the answer and checks it answers this request.
        public func call(_ url: URL, _ request: [String: String], _ name: String, limit: Int = ResponseBody.defaultLimit) async throws
            -> [String: String]
        {
            let signed = try signer.sign(request)
            let response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"],
                    body: Data(FormBody.encode(signed).utf8), timeout: .seconds(30)))
            guard response.status == 200 else {
                throw UnionPay.failure(.transport, "the \(name) answered HTTP \(response.status)")
            }
            let fields = try ResponseBody.parse(response.body, limit: limit)
            try verifier.verify(fields)
            try Self.checkEcho(fields, of: signed, name)
            return fields
        }

        /// An answer must echo the request's `merId`, `orderId` and `txnTime`: a signed answer
        /// captured from another call, replayed, is refused.
        static func checkEcho(_ fields: [String: String], of request: [String: String], _ name: String) throws {
            if let merID = fields["merId"], merID != request["merId"] {
                throw UnionPay.failure(.merchantMismatch, "the \(name) answer is for merchant \(merID.prefix(20)), not this one")
            }
            // A query's answer names the queried transaction's txnType (01, 04, 31), not the query's 00.
            let echoed = request["txnType"] == "00" ? ["orderId", "txnTime"] : ["orderId", "txnTime", "txnType"]
            for key in echoed where request[key] != nil && fields[key] != nil && fields[key] != request[key] {
                throw UnionPay.failure(.replayed, "the \(name) answer's \(key) is not the request's: an answer to another call")
            }
            // A rejected request may come back without echo fields; an accepted one must have them.
            if fields["respCode"] == "00", request["orderId"] != nil, fields["orderId"] == nil || fields["merId"] == nil {
                throw UnionPay.failure(.malformedMessage, "the \(name) answer does not echo merId and orderId")
            }
        }

        static func requireSuccess(_ fields: [String: String], _ name: String) throws {
            guard fields["respCode"] != ResponseCode.success.rawValue else { return }
            let code = fields["respCode"] ?? ""
            throw UnionPay.failure(
                .providerRejected, "the \(name) was refused: \(code) \(fields["respMsg"]?.prefix(80) ?? "")", respCode: code,
                respMsg: fields["respMsg"])
        }
    }
}

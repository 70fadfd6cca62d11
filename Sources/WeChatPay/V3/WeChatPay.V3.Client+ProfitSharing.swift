import Cashier
import Foundation

/// Profit sharing (分账, `/v3/profitsharing/…`): receivers added and deleted, shares of a paid
/// transaction (paid with `settle_info.profit_sharing`), their query, the end of an order's
/// sharing (unfreeze), returns from receivers, and what is left to share.
///
/// Requests are asynchronous: an order is `PROCESSING` when accepted; ask again with
/// ``profitSharingOrder(outOrderNo:transactionID:)``. On an answer that is not 2xx, or none, do
/// not change the `out_order_no` / `out_return_no`: WeChat makes one request of the same number.
extension WeChatPay.V3.Client {
    static let profitSharingPath = "/v3/profitsharing"

    /// Adds a receiver (idempotent). Its name, when given, is encrypted for the platform key,
    /// whose serial goes in `Wechatpay-Serial`.
    /// - Throws: `PaymentError.invalidRequest` before sending (``WeChatPay/V3/ProfitSharingReceiver/validate()``);
    ///   `.providerRejected` with WeChat's code (`PARAM_ERROR`, `INVALID_REQUEST`, …).
    public func addProfitSharingReceiver(_ receiver: WeChatPay.V3.ProfitSharingReceiver) async throws {
        try receiver.validate()
        let (key, headers) = try await sensitiveFieldKey(needed: receiver.name?.isEmpty == false, field: "name")
        var body = try receiver.addBody(encryptingFor: key)
        if let partner { body["sub_mchid"] = partner.subMchID }
        _ = try await send("POST", "\(Self.profitSharingPath)/receivers/add", json: body, headers: headers)
    }

    /// Deletes a receiver: orders can no longer name them.
    public func deleteProfitSharingReceiver(_ receiver: WeChatPay.V3.ProfitSharingReceiver) async throws {
        var body = try receiver.deleteBody()
        if let partner { body["sub_mchid"] = partner.subMchID }
        _ = try await send("POST", "\(Self.profitSharingPath)/receivers/delete", json: body)
    }

    /// Shares a paid transaction (or, sent again with the same `out_order_no` and body, answers the same order).
    /// - Returns: the order, usually `PROCESSING`.
    /// - Throws: `PaymentError.invalidRequest` before sending (see ``WeChatPay/V3/ProfitSharingOrderRequest/validate()``);
    ///   `.providerRejected` with WeChat's code (`INVALID_REQUEST` for a ratio passed or an order not shareable, `NOT_ENOUGH`, …).
    public func createProfitSharingOrder(_ request: WeChatPay.V3.ProfitSharingOrderRequest) async throws -> WeChatPay.V3.ProfitSharingOrder
    {
        try request.validate()
        let (key, headers) = try await sensitiveFieldKey(needed: request.hasNames, field: "name")
        var body = try request.body(encryptingFor: key)
        if let partner { body["sub_mchid"] = partner.subMchID }
        let order = try WeChatPay.V3.ProfitSharingOrder.decode(
            try await send("POST", "\(Self.profitSharingPath)/orders", json: body, headers: headers))
        try Self.expect(order, outOrderNo: request.outOrderNo)
        return order
    }

    /// Where a profit-sharing order stands.
    /// - Throws: `.providerRejected` with `RESOURCE_NOT_EXISTS` for an order WeChat does not know.
    public func profitSharingOrder(outOrderNo: String, transactionID: String) async throws -> WeChatPay.V3.ProfitSharingOrder {
        let number = try Self.orderNumber(outOrderNo)
        let id = try Self.transactionSegment(transactionID)
        let order = try WeChatPay.V3.ProfitSharingOrder.decode(
            try await send("GET", "\(Self.profitSharingPath)/orders/\(number)?transaction_id=\(id)\(subMerchantQuery)"))
        try Self.expect(order, outOrderNo: outOrderNo)
        return order
    }

    /// Ends a transaction's sharing: what is left unshared unfreezes to the merchant, under a new `out_order_no`.
    /// - Returns: a Share-shaped order (no receivers), usually `PROCESSING`.
    public func unfreezeProfitSharing(transactionID: String, outOrderNo: String, description: String) async throws
        -> WeChatPay.V3.ProfitSharingOrder
    {
        let id = try Self.transactionSegment(transactionID)
        let number = try Self.orderNumber(outOrderNo)
        guard !description.isEmpty, description.count <= WeChatPay.V3.ProfitSharingOrderRequest.descriptionLimit else {
            throw Self.refused("description must be 1 to \(WeChatPay.V3.ProfitSharingOrderRequest.descriptionLimit) characters")
        }
        var body: [String: Any] = ["transaction_id": id, "out_order_no": number, "description": description]
        if let partner { body["sub_mchid"] = partner.subMchID }
        let order = try WeChatPay.V3.ProfitSharingOrder.decode(
            try await send("POST", "\(Self.profitSharingPath)/orders/unfreeze", json: body))
        try Self.expect(order, outOrderNo: outOrderNo)
        return order
    }

    /// Takes money back from a `MERCHANT_ID` receiver's share.
    /// - Returns: the return, `PROCESSING`, `SUCCESS` or `FAILED` (with `fail_reason`).
    public func createProfitSharingReturn(_ request: WeChatPay.V3.ProfitSharingReturnRequest) async throws
        -> WeChatPay.V3.ProfitSharingReturn
    {
        var body = try request.body()
        if let partner { body["sub_mchid"] = partner.subMchID }
        let answer = try WeChatPay.V3.ProfitSharingReturn.decode(
            try await send("POST", "\(Self.profitSharingPath)/return-orders", json: body))
        try Self.expect(answer, outReturnNo: request.outReturnNo)
        return answer
    }

    /// Where a return stands.
    /// - Throws: `.providerRejected` with `RESOURCE_NOT_EXISTS` for a return WeChat does not know.
    public func profitSharingReturn(outReturnNo: String, outOrderNo: String) async throws -> WeChatPay.V3.ProfitSharingReturn {
        let returnNumber = try Self.orderNumber(outReturnNo, what: "out_return_no")
        let number = try Self.orderNumber(outOrderNo)
        let answer = try WeChatPay.V3.ProfitSharingReturn.decode(
            try await send("GET", "\(Self.profitSharingPath)/return-orders/\(returnNumber)?out_order_no=\(number)\(subMerchantQuery)"))
        try Self.expect(answer, outReturnNo: outReturnNo)
        return answer
    }

    /// What is left to share of a transaction (`unsplit_amount`), in fen.
    public func profitSharingUnsplitAmount(transactionID: String) async throws -> Int64 {
        let id = try Self.transactionSegment(transactionID)
        struct Answer: Decodable {
            let transaction_id: String
            let unsplit_amount: Int64
        }
        let data = try await send("GET", "\(Self.profitSharingPath)/transactions/\(id)/amounts")
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), answer.transaction_id == transactionID else {
            throw PaymentError(.malformedMessage, provider: .wechatV3, "the answer is not the unsplit amount of \(transactionID)")
        }
        return answer.unsplit_amount
    }

    /// A sub-merchant's maximum share to others (partner mode), in basis points (2000 = 20 %).
    public func profitSharingMaxRatio(subMchID: String) async throws -> Int {
        guard !subMchID.isEmpty, subMchID.utf8.count <= 32, subMchID.utf8.allSatisfy(\.isASCIIAlphanumeric) else {
            throw Self.refused("sub_mchid must be a merchant number")
        }
        struct Answer: Decodable {
            let sub_mchid: String
            let max_ratio: Int
        }
        let data = try await send("GET", "\(Self.profitSharingPath)/merchant-configs/\(subMchID)")
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data), answer.sub_mchid == subMchID else {
            throw PaymentError(.malformedMessage, provider: .wechatV3, "the answer is not the ratio of \(subMchID)")
        }
        return answer.max_ratio
    }

    // MARK: Helpers

    /// `&sub_mchid=…` in partner mode.
    private var subMerchantQuery: String { partner.map { "&sub_mchid=\($0.subMchID)" } ?? "" }

    static func orderNumber(_ number: String, what: String = "out_order_no") throws -> String {
        guard WeChatPay.V3.ProfitSharingOrderRequest.isValidOrderNumber(number) else {
            throw refused("\(what) must be 1 to 64 of [0-9A-Za-z_-|*@]")
        }
        // `|` may not stand in a URL path as it is; the rest of the alphabet may.
        return number.replacingOccurrences(of: "|", with: "%7C")
    }

    static func transactionSegment(_ id: String) throws -> String {
        guard WeChatPay.V3.ProfitSharingOrderRequest.isValidTransactionID(id) else {
            throw refused("transaction_id must be 1 to 32 letters and digits")
        }
        return id
    }

    static func expect(_ order: WeChatPay.V3.ProfitSharingOrder, outOrderNo: String) throws {
        guard order.outOrderNo == outOrderNo else {
            throw PaymentError(
                .malformedMessage, provider: .wechatV3,
                "the answer is about profit-sharing order \(order.outOrderNo.prefix(64)), not \(outOrderNo)")
        }
    }

    static func expect(_ answer: WeChatPay.V3.ProfitSharingReturn, outReturnNo: String) throws {
        guard answer.outReturnNo == outReturnNo else {
            throw PaymentError(
                .malformedMessage, provider: .wechatV3, "the answer is about return \(answer.outReturnNo.prefix(64)), not \(outReturnNo)")
        }
    }

    /// The profit-sharing bill (分账账单) of a day: its signed listing, the file gzipped from the
    /// gateway's `download_url`, its SHA1 checked against the listing, inflated and parsed.
    /// WeChat lists finished shares and returns only.
    /// - Parameter date: `yyyy-MM-dd`, Beijing time (within the last three months).
    /// - Throws: `.providerRejected` with WeChat's code (`NO_STATEMENT_EXIST` for a day with no
    ///   bill); `.signatureMismatch` when the file does not match its hash; `.malformedMessage`.
    public func profitSharingBill(date: String) async throws -> WeChatPay.V3.ProfitSharingBill {
        let merchant = partner.map { "&sub_mchid=\($0.subMchID)" } ?? ""
        let text = try await billText("\(Self.profitSharingPath)/bills?bill_date=\(date)\(merchant)&tar_type=GZIP")
        return try WeChatPay.V3.ProfitSharingBill(parsing: text)
    }
}

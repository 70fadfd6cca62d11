import Cashier

extension WeChatPay.V3 {
    /// A profit-sharing return (分账回退, `POST /v3/profitsharing/return-orders`): money taken back
    /// from a `MERCHANT_ID` receiver's share of an order, named by ``outOrderNo`` or ``orderID``.
    ///
    /// ```swift
    /// let request = WeChatPay.V3.ProfitSharingReturnRequest(
    ///     outOrderNo: "P20150806125346", outReturnNo: "R20190516001", returnMchID: "86693852", amount: 10, description: "用户退款")
    /// let answer = try await client.createProfitSharingReturn(request)
    /// ```
    public struct ProfitSharingReturnRequest: Sendable, Equatable {
        /// `out_order_no` of the share's order (or ``orderID``).
        public var outOrderNo: String?
        /// `order_id`, WeChat's number of the order (or ``outOrderNo``).
        public var orderID: String?
        /// `out_return_no`: 1 to 64 of `[0-9A-Za-z_-|*@]`; a retry reuses it.
        public var outReturnNo: String
        /// `return_mchid`: the receiver merchant the money comes back from.
        public var returnMchID: String
        /// In fen, more than 0.
        public var amount: Int64
        /// At most 80 characters.
        public var description: String

        public init(
            outOrderNo: String? = nil, orderID: String? = nil, outReturnNo: String, returnMchID: String, amount: Int64, description: String
        ) {
            self.outOrderNo = outOrderNo
            self.orderID = orderID
            self.outReturnNo = outReturnNo
            self.returnMchID = returnMchID
            self.amount = amount
            self.description = description
        }

        /// Checks the request as WeChat would. - Throws: `PaymentError.invalidRequest`, saying what is wrong.
        public func validate() throws {
            func refuse(_ message: String) -> PaymentError { PaymentError(.invalidRequest, provider: .wechatV3, message) }
            guard outOrderNo.map(ProfitSharingOrderRequest.isValidOrderNumber) ?? (orderID?.isEmpty == false) else {
                throw refuse("out_order_no (1 to 64 of [0-9A-Za-z_-|*@]) or order_id is required")
            }
            guard ProfitSharingOrderRequest.isValidOrderNumber(outReturnNo) else {
                throw refuse("out_return_no must be 1 to 64 of [0-9A-Za-z_-|*@]")
            }
            guard !returnMchID.isEmpty, returnMchID.utf8.count <= 32, returnMchID.utf8.allSatisfy({ (48...57).contains($0) }) else {
                throw refuse("return_mchid must be a merchant number")
            }
            guard amount > 0 else { throw refuse("amount must be a positive number of fen") }
            guard !description.isEmpty, description.count <= ProfitSharingOrderRequest.descriptionLimit else {
                throw refuse("description must be 1 to \(ProfitSharingOrderRequest.descriptionLimit) characters")
            }
        }

        /// The request body. - Throws: `PaymentError.invalidRequest` (see ``validate()``).
        public func body() throws -> [String: Any] {
            try validate()
            var body: [String: Any] = [
                "out_return_no": outReturnNo, "return_mchid": returnMchID, "amount": amount, "description": description,
            ]
            if let outOrderNo { body["out_order_no"] = outOrderNo }
            if let orderID { body["order_id"] = orderID }
            return body
        }
    }
}

import Cashier
public import CashierCrypto

extension WeChatPay.V3 {
    /// A profit-sharing request (请求分账, `POST /v3/profitsharing/orders`): shares of a paid
    /// transaction (paid with `settle_info.profit_sharing`) to receivers added before.
    ///
    /// WeChat takes at most ``maxReceivers`` receivers a request and 50 requests an order; the
    /// shares to others may not pass the merchant's maximum ratio (30 % by default).
    /// ``unfreezeUnsplit`` ends the order's sharing: the rest unfreezes to the merchant.
    ///
    /// ```swift
    /// let request = WeChatPay.V3.ProfitSharingOrderRequest(
    ///     appID: "wx8888888888888888", transactionID: "4208450740201411110007820472", outOrderNo: "P20150806125346",
    ///     receivers: [.init(type: .merchantID, account: "86693852", amount: 888, description: "分给商户A")], unfreezeUnsplit: true)
    /// let order = try await client.createProfitSharingOrder(request)
    /// ```
    public struct ProfitSharingOrderRequest: Sendable, Equatable {
        /// One receiver's share.
        public struct Share: Sendable, Equatable {
            public var type: ProfitSharingReceiver.Kind
            public var account: String
            /// The receiver's name, in clear here (sent encrypted); optional.
            public var name: String?
            /// `amount`, in fen, more than 0.
            public var amount: Int64
            /// `description`, at most 80 characters.
            public var description: String

            public init(type: ProfitSharingReceiver.Kind, account: String, name: String? = nil, amount: Int64, description: String) {
                self.type = type
                self.account = account
                self.name = name
                self.amount = amount
                self.description = description
            }
        }

        /// The most receivers one request may name.
        public static let maxReceivers = 50
        /// The most characters a share's description may have.
        public static let descriptionLimit = 80

        public var appID: String
        /// `transaction_id`, WeChat's number of the payment.
        public var transactionID: String
        /// `out_order_no`: letters, digits and `_-|*@`, at most 64; a retry reuses it.
        public var outOrderNo: String
        public var receivers: [Share]
        /// `unfreeze_unsplit`: whether the rest unfreezes to the merchant (no more shares after).
        public var unfreezeUnsplit: Bool

        public init(appID: String, transactionID: String, outOrderNo: String, receivers: [Share], unfreezeUnsplit: Bool) {
            self.appID = appID
            self.transactionID = transactionID
            self.outOrderNo = outOrderNo
            self.receivers = receivers
            self.unfreezeUnsplit = unfreezeUnsplit
        }

        /// `true` when `number` is an `out_order_no` (or `out_return_no`) WeChat takes: 1 to 64 of
        /// `[0-9A-Za-z_-|*@]`.
        public static func isValidOrderNumber(_ number: String) -> Bool {
            !number.isEmpty && number.utf8.count <= 64 && number.utf8.allSatisfy { $0.isASCIIAlphanumeric || "_-|*@".utf8.contains($0) }
        }

        /// `true` when `id` is a `transaction_id` that can go in a path: 1 to 32 letters and digits.
        public static func isValidTransactionID(_ id: String) -> Bool {
            !id.isEmpty && id.utf8.count <= 32 && id.utf8.allSatisfy(\.isASCIIAlphanumeric)
        }

        /// Whether any share carries a name (then the request needs `Wechatpay-Serial`).
        public var hasNames: Bool { receivers.contains { $0.name?.isEmpty == false } }

        /// Checks the request as WeChat would. - Throws: `PaymentError.invalidRequest`, saying what is wrong.
        public func validate() throws {
            func refuse(_ message: String) -> PaymentError { PaymentError(.invalidRequest, provider: .wechatV3, message) }
            guard !appID.isEmpty else { throw refuse("appid is required") }
            guard Self.isValidTransactionID(transactionID) else { throw refuse("transaction_id must be 1 to 32 letters and digits") }
            guard Self.isValidOrderNumber(outOrderNo) else { throw refuse("out_order_no must be 1 to 64 of [0-9A-Za-z_-|*@]") }
            guard !receivers.isEmpty, receivers.count <= Self.maxReceivers else {
                throw refuse("receivers must name 1 to \(Self.maxReceivers) receivers")
            }
            for share in receivers {
                guard ProfitSharingReceiver.Kind.documented.contains(share.type) else {
                    throw refuse("type \(share.type.rawValue.prefix(32)) is not a receiver type WeChat knows")
                }
                guard !share.account.isEmpty, share.account.utf8.count <= 64 else { throw refuse("account must be 1 to 64 characters") }
                guard share.amount > 0 else { throw refuse("amount must be a positive number of fen") }
                guard !share.description.isEmpty, share.description.count <= Self.descriptionLimit else {
                    throw refuse("description must be 1 to \(Self.descriptionLimit) characters")
                }
            }
        }

        /// The request body, each name encrypted for `key`.
        /// - Throws: `PaymentError.invalidRequest` (see ``validate()``), or a name with no key.
        public func body(encryptingFor key: RSAPublicKey?) throws -> [String: Any] {
            try validate()
            let shares = try receivers.map { share -> [String: Any] in
                var entry: [String: Any] = [
                    "type": share.type.rawValue, "account": share.account, "amount": share.amount, "description": share.description,
                ]
                if let name = share.name, !name.isEmpty { entry["name"] = try SensitiveField.encrypt(name, for: key, field: "name") }
                return entry
            }
            return [
                "appid": appID, "transaction_id": transactionID, "out_order_no": outOrderNo, "receivers": shares,
                "unfreeze_unsplit": unfreezeUnsplit,
            ]
        }
    }
}

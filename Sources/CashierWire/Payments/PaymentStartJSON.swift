/// The answer to `POST /v1/orders/{id}/payments`: the attempt and what the app hands its wallet
/// (``wallet``, written as one of the optional fields, by method).
///
/// ```swift
/// let start = try JSONDecoder().decode(PaymentStartJSON.self, from: body)
/// guard case .alipayOrderString(let orderString)? = start.wallet else { return }
/// ```
public struct PaymentStartJSON: Codable, Sendable, Equatable {
    public let method: String
    public let payment_id: String
    public let out_trade_no: String
    /// wechat.*: the API generation used, `v2` or `v3`.
    public let api: String?
    /// What the wallet needs; `nil` for a counter payment (wechat.barcode, alipay.barcode).
    public let wallet: WalletParameters?
    /// wechat.barcode / alipay.barcode: `paid`, or `pending` while the payer confirms on the
    /// phone (HTTP 202: the server keeps asking; read the order for the outcome).
    public var status: String?
    /// wechat.barcode / alipay.barcode, once paid: the provider's transaction id.
    public var transaction_id: String?

    public init(
        method: String, payment_id: String, out_trade_no: String, api: String?, wallet: WalletParameters?, status: String? = nil,
        transaction_id: String? = nil
    ) {
        self.method = method
        self.payment_id = payment_id
        self.out_trade_no = out_trade_no
        self.api = api
        self.wallet = wallet
        self.status = status
        self.transaction_id = transaction_id
    }

    enum Key: String, CodingKey {
        case method, payment_id, out_trade_no, api, status, transaction_id
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        method = try container.decode(String.self, forKey: .method)
        payment_id = try container.decode(String.self, forKey: .payment_id)
        out_trade_no = try container.decode(String.self, forKey: .out_trade_no)
        api = try container.decodeIfPresent(String.self, forKey: .api)
        wallet = try WalletParameters(from: decoder.container(keyedBy: WalletParameters.Key.self))
        status = try container.decodeIfPresent(String.self, forKey: .status)
        transaction_id = try container.decodeIfPresent(String.self, forKey: .transaction_id)
    }

    /// The attempt's fields, then every wallet key (present or not), then the counter's: the
    /// same fields, in the same order, as when each was a property of its own.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(method, forKey: .method)
        try container.encode(payment_id, forKey: .payment_id)
        try container.encode(out_trade_no, forKey: .out_trade_no)
        try container.encodeIfPresent(api, forKey: .api)
        var walletKeys = encoder.container(keyedBy: WalletParameters.Key.self)
        if let wallet {
            try wallet.encode(into: &walletKeys)
        } else {
            try WalletParameters.none(into: &walletKeys)
        }
        var counter = encoder.container(keyedBy: Key.self)
        try counter.encodeIfPresent(status, forKey: .status)
        try counter.encodeIfPresent(transaction_id, forKey: .transaction_id)
    }
}

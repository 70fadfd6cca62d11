/// `POST /v1/orders/{id}/payments`: which wallet, and what it needs to know about the payer.
///
/// ```swift
/// let body = PaymentRequestBody(method: PaymentMethod.wechatApp.rawValue, client_secret: secret)
/// request.httpBody = try JSONEncoder().encode(body)
/// ```
public struct PaymentRequestBody: Codable, Sendable, Equatable {
    /// `wechat.app`, …, `applepay` (``PaymentMethod``).
    public let method: String
    public let client_secret: String?
    /// The payer's IP address; when absent, the address the request came from (through the
    /// trusted proxies' `X-Forwarded-For`) is used.
    public var client_ip: String?
    /// wechat.*: `v2` or `v3` (default: the server's configuration).
    public let api: String?
    /// wechat.jsapi: the payer's openid for this appid.
    public let openid: String?
    /// wechat.miniprogram: the code from `wx.login` (exchanged for the openid on the server).
    public let js_code: String?
    /// alipay.wap / alipay.page: where Alipay sends the browser back.
    public let return_url: String?
    /// wechat.barcode / alipay.barcode: the payment code the till scanned from the payer's phone.
    public let auth_code: String?
    /// What the payer's device can pay with, for the server's choice of method (unionpay.applepay
    /// needs Apple Pay to hold a China UnionPay card).
    public var payer_wallets: PayerWalletsBody?

    public init(
        method: String, client_secret: String? = nil, client_ip: String? = nil, api: String? = nil, openid: String? = nil,
        js_code: String? = nil, return_url: String? = nil, auth_code: String? = nil, payer_wallets: PayerWalletsBody? = nil
    ) {
        self.method = method
        self.client_secret = client_secret
        self.client_ip = client_ip
        self.api = api
        self.openid = openid
        self.js_code = js_code
        self.return_url = return_url
        self.auth_code = auth_code
        self.payer_wallets = payer_wallets
    }
}

/// `payer_wallets`: what the payer's device said it can pay with.
///
/// ```swift
/// let wallets = PayerWalletsBody(apple_pay_networks: ["ChinaUnionPay"])
/// ```
public struct PayerWalletsBody: Codable, Sendable, Equatable {
    /// The PassKit network names (`PKPaymentNetwork.rawValue`) Apple Pay said yes to in
    /// `canMakePayments(usingNetworks:)`; empty: none of those asked about; absent: not asked.
    public var apple_pay_networks: [String]?

    public init(apple_pay_networks: [String]? = nil) {
        self.apple_pay_networks = apple_pay_networks
    }

    /// The network UnionPay's Apple Pay plugin needs.
    public static let chinaUnionPay = "ChinaUnionPay"

    /// `false` when the device said Apple Pay holds no China UnionPay card; `nil` when it did not say.
    public var canPayWithChinaUnionPay: Bool? { apple_pay_networks.map { $0.contains(Self.chinaUnionPay) } }
}

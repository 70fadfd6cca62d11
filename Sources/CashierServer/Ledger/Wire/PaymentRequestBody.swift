/// `POST /v1/orders/{id}/payments`: which wallet, and what it needs to know about the payer.
struct PaymentRequestBody: Decodable, Sendable {
    /// `wechat.app`, …, `applepay` (``Cashier/PaymentMethod``).
    let method: String
    let client_secret: String?
    /// The payer's IP address; when absent, the address the request came from (through the
    /// trusted proxies' `X-Forwarded-For`) is used.
    var client_ip: String?
    /// wechat.*: `v2` or `v3` (default: the server's configuration).
    let api: String?
    /// wechat.jsapi: the payer's openid for this appid.
    let openid: String?
    /// wechat.miniprogram: the code from `wx.login` (exchanged for the openid on the server).
    let js_code: String?
    /// alipay.wap / alipay.page: where Alipay sends the browser back.
    let return_url: String?
    /// wechat.barcode / alipay.barcode: the payment code the till scanned from the payer's phone.
    let auth_code: String?

    init(
        method: String, client_secret: String? = nil, client_ip: String? = nil, api: String? = nil, openid: String? = nil,
        js_code: String? = nil, return_url: String? = nil, auth_code: String? = nil
    ) {
        self.method = method
        self.client_secret = client_secret
        self.client_ip = client_ip
        self.api = api
        self.openid = openid
        self.js_code = js_code
        self.return_url = return_url
        self.auth_code = auth_code
    }

    /// How many digits a payment code has, any provider's.
    static let paymentCodeDigits = 16...24

    /// The shape the API's document gives each field, checked whatever the method: a field that
    /// this method does not read is still refused when malformed, so a client's mistake (an
    /// `auth_code` sent with `applepay`, an `api` of `v4` with Alipay) is reported, not ignored.
    /// - Throws: `RequestProblem` (400) naming the field.
    func checkShape() throws {
        if let ip = client_ip, !RequestBounds.isIPAddress(ip) {
            throw RequestProblem("client_ip '\(ip)' is not an IPv4 or IPv6 address")
        }
        if let api, api != "v2" && api != "v3" {
            throw RequestProblem("api '\(api)' is not v2 or v3")
        }
        if let code = auth_code, !Self.paymentCodeDigits.contains(code.utf8.count) || !code.utf8.allSatisfy({ (48...57).contains($0) }) {
            throw RequestProblem("auth_code must be 16 to 24 digits, the payment code as the scanner reads it")
        }
    }
}

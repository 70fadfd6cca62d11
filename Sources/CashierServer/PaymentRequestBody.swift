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
}

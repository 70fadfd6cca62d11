/// What the app hands its wallet to pay, as `POST /v1/orders/{id}/payments` answers it: one of
/// these, by method, written beside the attempt's fields under the keys each case names.
///
/// ```swift
/// let start = try JSONDecoder().decode(PaymentStartJSON.self, from: body)
/// if case .wechatQRCode(let codeURL) = start.wallet { showQRCode(codeURL) }
/// ```
public enum WalletParameters: Sendable, Equatable {
    /// wechat.native: the QR code's text (`code_url`).
    case wechatQRCode(String)
    /// wechat.h5: the page to open in the phone's browser (`mweb_url`).
    case wechatH5(String)
    /// wechat.app / wechat.jsapi / wechat.miniprogram: the signed parameters for the SDK
    /// (`wechat`: `PayReq`'s fields for an app, `wx.requestPayment`'s for JSAPI and mini programs).
    case wechat([String: String])
    /// alipay.wap / alipay.page: the gateway address (`url`), and an HTML form that posts the
    /// signed request to it (`form`).
    case alipayPage(url: String, form: String)
    /// alipay.app: the signed order string for the SDK (`order_string`).
    case alipayOrderString(String)
    /// alipay.qr: the QR code's text (`qr_code`).
    case alipayQRCode(String)
    /// applepay: the payment request for `PKPaymentRequest` / `ApplePaySession` (`payment_request`).
    case applePayRequest(JSONValue)
    /// unionpay.applepay / unionpay.app: UnionPay's order number for the plugin (`tn`) and the
    /// plugin's environment (`mode`: `00` production, `01` UnionPay's test environment), as
    /// `"unionpay": {"tn": "…", "mode": "00"}`.
    case unionpay(tn: String, mode: String)

    /// The JSON keys, in the order the answer writes them.
    enum Key: String, CodingKey, CaseIterable {
        case code_url, mweb_url, wechat, url, form, order_string, qr_code, payment_request, unionpay
    }

    /// What `unionpay` holds: UnionPay's order number for the plugin and the plugin's mode.
    public struct UnionPayFields: Codable, Sendable, Equatable {
        /// 银联受理订单号 (21 digits).
        public let tn: String
        /// `00` production, `01` UnionPay's test environment.
        public let mode: String

        public init(tn: String, mode: String) {
            self.tn = tn
            self.mode = mode
        }
    }

    /// Writes every key, each case's present and the others absent (`encodeIfPresent` with `nil`),
    /// so an encoder that reads a type's shape sees all of them.
    func encode(into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encodeIfPresent(string(.code_url), forKey: .code_url)
        try container.encodeIfPresent(string(.mweb_url), forKey: .mweb_url)
        var wechat: [String: String]?
        if case .wechat(let fields) = self { wechat = fields }
        try container.encodeIfPresent(wechat, forKey: .wechat)
        try container.encodeIfPresent(string(.url), forKey: .url)
        try container.encodeIfPresent(string(.form), forKey: .form)
        try container.encodeIfPresent(string(.order_string), forKey: .order_string)
        try container.encodeIfPresent(string(.qr_code), forKey: .qr_code)
        var request: JSONValue?
        if case .applePayRequest(let value) = self { request = value }
        try container.encodeIfPresent(request, forKey: .payment_request)
        var unionpay: UnionPayFields?
        if case .unionpay(let tn, let mode) = self { unionpay = UnionPayFields(tn: tn, mode: mode) }
        try container.encodeIfPresent(unionpay, forKey: .unionpay)
    }

    /// Every wallet key, absent.
    static func none(into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encodeIfPresent(String?.none, forKey: .code_url)
        try container.encodeIfPresent(String?.none, forKey: .mweb_url)
        try container.encodeIfPresent([String: String]?.none, forKey: .wechat)
        try container.encodeIfPresent(String?.none, forKey: .url)
        try container.encodeIfPresent(String?.none, forKey: .form)
        try container.encodeIfPresent(String?.none, forKey: .order_string)
        try container.encodeIfPresent(String?.none, forKey: .qr_code)
        try container.encodeIfPresent(JSONValue?.none, forKey: .payment_request)
        try container.encodeIfPresent(UnionPayFields?.none, forKey: .unionpay)
    }

    /// The one the container holds; `nil` when it holds none (a counter payment's answer).
    init?(from container: KeyedDecodingContainer<Key>) throws {
        if let text = try container.decodeIfPresent(String.self, forKey: .code_url) {
            self = .wechatQRCode(text)
        } else if let text = try container.decodeIfPresent(String.self, forKey: .mweb_url) {
            self = .wechatH5(text)
        } else if let fields = try container.decodeIfPresent([String: String].self, forKey: .wechat) {
            self = .wechat(fields)
        } else if let url = try container.decodeIfPresent(String.self, forKey: .url) {
            self = .alipayPage(url: url, form: try container.decodeIfPresent(String.self, forKey: .form) ?? "")
        } else if let text = try container.decodeIfPresent(String.self, forKey: .order_string) {
            self = .alipayOrderString(text)
        } else if let text = try container.decodeIfPresent(String.self, forKey: .qr_code) {
            self = .alipayQRCode(text)
        } else if let request = try container.decodeIfPresent(JSONValue.self, forKey: .payment_request) {
            self = .applePayRequest(request)
        } else if let fields = try container.decodeIfPresent(UnionPayFields.self, forKey: .unionpay) {
            self = .unionpay(tn: fields.tn, mode: fields.mode)
        } else {
            return nil
        }
    }

    /// This case's text under `key`, if it writes one there.
    private func string(_ key: Key) -> String? {
        switch (self, key) {
        case (.wechatQRCode(let text), .code_url), (.wechatH5(let text), .mweb_url), (.alipayOrderString(let text), .order_string),
            (.alipayQRCode(let text), .qr_code), (.alipayPage(let text, _), .url), (.alipayPage(_, let text), .form):
            text
        default: nil
        }
    }
}

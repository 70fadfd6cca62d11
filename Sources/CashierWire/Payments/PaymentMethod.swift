/// How a payer pays: one wallet and one of its ways of taking money. The JSON form is the raw
/// value (`"wechat.native"`), which is what `POST /v1/orders/{id}/payments` takes as `method`.
public enum PaymentMethod: String, Hashable, Sendable, Codable, CaseIterable {
    /// WeChat Pay in an app (the SDK's `PayReq`).
    case wechatApp = "wechat.app"
    /// WeChat Pay in WeChat's own browser or an official account (needs the payer's openid).
    case wechatJSAPI = "wechat.jsapi"
    /// WeChat Pay in a mini program (`wx.requestPayment`; the openid comes from `wx.login`'s code).
    case wechatMiniProgram = "wechat.miniprogram"
    /// A WeChat Pay QR code the payer scans (`code_url`).
    case wechatNative = "wechat.native"
    /// WeChat Pay from a mobile browser outside WeChat (`mweb_url`).
    case wechatH5 = "wechat.h5"
    /// WeChat Pay at the counter: the cashier scans the payer's payment code (付款码, `auth_code`).
    case wechatBarcode = "wechat.barcode"
    /// Alipay in an app (a signed order string for the SDK).
    case alipayApp = "alipay.app"
    /// Alipay's mobile web cashier.
    case alipayWap = "alipay.wap"
    /// Alipay's desktop web cashier.
    case alipayPage = "alipay.page"
    /// An Alipay QR code the payer scans (`qr_code`).
    case alipayQR = "alipay.qr"
    /// Alipay at the counter (当面付 bar code): the cashier scans the payer's payment code.
    case alipayBarcode = "alipay.barcode"
    /// Apple Pay: a payment request for the sheet, then the token authorised on the server.
    case applePay = "applepay"
    /// Apple Pay through UnionPay's gateway (全渠道): CNY on China UnionPay cards in mainland China.
    /// The server sends UnionPay's consume and answers a `tn`, which the app hands to UnionPay's
    /// Apple Pay plugin (`UPAPayPlugin`), which builds the sheet itself.
    case unionpayApplePay = "unionpay.applepay"
    /// 云闪付 / UnionPay's card control (`UPPaymentControl`), with the same `tn`.
    case unionpayApp = "unionpay.app"

    /// The wallet a method belongs to. Each wallet has one space of merchant trade numbers
    /// (`out_trade_no`): WeChat Pay's API v2 and v3 share one.
    public enum Wallet: String, Hashable, Sendable, Codable, CaseIterable {
        case wechat
        case alipay
        case applePay = "applepay"
        /// UnionPay's online gateway, whichever plugin the payer uses.
        case unionpay
    }

    /// The wallet this method pays through.
    public var wallet: Wallet {
        switch self {
        case .wechatApp, .wechatJSAPI, .wechatMiniProgram, .wechatNative, .wechatH5, .wechatBarcode: .wechat
        case .alipayApp, .alipayWap, .alipayPage, .alipayQR, .alipayBarcode: .alipay
        case .applePay: .applePay
        case .unionpayApplePay, .unionpayApp: .unionpay
        }
    }

    /// `true` for the counter methods: the payer shows a payment code and the merchant's
    /// server collects the money with it (no wallet opens on the merchant's side).
    public var isBarcode: Bool { self == .wechatBarcode || self == .alipayBarcode }

    /// Every method's JSON name, for error messages: `wechat.app, wechat.jsapi, …`.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension PaymentProvider {
    /// The wallet whose trade numbers this provider uses.
    public var wallet: PaymentMethod.Wallet {
        switch self {
        case .wechatV2, .wechatV3: .wechat
        case .alipay: .alipay
        case .applePay: .applePay
        case .unionpay: .unionpay
        }
    }
}

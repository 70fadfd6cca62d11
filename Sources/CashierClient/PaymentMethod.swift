/// The payment methods the server offers (`POST /v1/orders/{id}/payments`).
public enum PaymentMethod: String, Sendable, CaseIterable {
    case wechatApp = "wechat.app"
    case wechatNative = "wechat.native"
    case alipayApp = "alipay.app"
    case alipayQR = "alipay.qr"
    case applePay = "applepay"
}

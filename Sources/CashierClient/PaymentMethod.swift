// The wire types come with the SDK: an app that imports CashierClient reads the server's JSON
// (`OrderJSON`, `WebhookEventJSON`, …) with the very types the server writes. The SDK's own
// `WalletParameters` (what a launcher gets) is the one an app sees by that name.
@_exported public import CashierWire

/// The payment methods the server offers (`POST /v1/orders/{id}/payments`): the same enumeration
/// the server uses, shared through `CashierWire`. An app starts `wechatApp`, `wechatNative`,
/// `wechatH5`, `alipayApp`, `alipayQR`, `alipayWap`, `alipayPage`, `applePay`, `unionpayApplePay` and
/// `unionpayApp` itself; the others
/// are paid in WeChat's browser or a mini program, or collected at the counter by the merchant.
public typealias PaymentMethod = CashierWire.PaymentMethod

extension PaymentMethod {
    /// The methods an app starts with ``CashierClient/startPayment(orderID:clientSecret:method:returnURL:)``
    /// (the others are paid in WeChat's browser or a mini program, or collected at a till).
    public static let startedFromApps: [PaymentMethod] = [
        .wechatApp, .wechatNative, .wechatH5, .alipayApp, .alipayQR, .alipayWap, .alipayPage, .applePay, .unionpayApplePay,
        .unionpayApp,
    ]
}

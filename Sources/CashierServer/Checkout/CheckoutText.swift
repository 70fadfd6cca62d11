import Cashier

/// The checkout page's words in the payer's language: Chinese or English, from `Accept-Language`.
struct CheckoutText: Sendable {
    enum Language: String, Sendable {
        case zh = "zh-CN"
        case en
    }

    let language: Language

    /// The first of Chinese or English the header prefers (by `q`, then order); Chinese when it names neither
    /// (or there is none), as most of these wallets' payers read it.
    init(acceptLanguage: String?) {
        var best: (language: Language, weight: Double)?
        for part in (acceptLanguage ?? "").split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let tag = fields.first else { continue }
            let weight = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            let language: Language? = tag == "zh" || tag.hasPrefix("zh-") ? .zh : tag == "en" || tag.hasPrefix("en-") ? .en : nil
            if let language, weight > 0, weight > (best?.weight ?? 0) { best = (language, weight) }
        }
        language = best?.language ?? .zh
    }

    private func pick(_ zh: String, _ en: String) -> String { language == .zh ? zh : en }

    var title: String { pick("收银台", "Checkout") }
    var total: String { pick("合计", "Total") }
    var choose: String { pick("选择支付方式", "Choose how to pay") }
    var waiting: String { pick("等待支付", "Waiting for payment") }
    var confirming: String { pick("正在确认支付结果…", "Confirming your payment…") }
    var paid: String { pick("支付成功", "Paid") }
    var paidReturning: String { pick("支付成功，正在返回商户…", "Paid. Taking you back to the shop…") }
    var back: String { pick("返回商户", "Back to the shop") }
    var closed: String { pick("订单已关闭，无法支付", "This order is closed and can no longer be paid") }
    var expired: String { pick("订单已过期，无法支付", "This order has expired and can no longer be paid") }
    var refunded: String { pick("订单已退款", "This order was refunded") }
    var notCompleted: String { pick("支付未完成，请重新选择支付方式", "The payment was not completed. Choose how to pay again.") }
    var noMethods: String { pick("此设备上没有可用的支付方式", "No payment method works on this device") }
    var scan: String { pick("请使用微信扫一扫", "Scan with WeChat to pay") }
    var otherMethod: String { pick("选择其他支付方式", "Choose another way to pay") }
    var continueTo: String { pick("继续", "Continue") }
    var redirecting: String { pick("正在跳转…", "Taking you to your wallet…") }
    var openInWeChat: String { pick("正在打开微信支付…", "Opening WeChat Pay…") }
    var notFound: String { pick("找不到这个订单", "No such order") }
    var notFoundDetail: String {
        pick("链接可能不完整，请向商户索取新的支付链接。", "The link may be incomplete: ask the shop for a new payment link.")
    }
    var failed: String { pick("无法发起支付", "The payment could not be started") }
    var badReturn: String { pick("返回地址不被允许", "This return address is not allowed") }

    func name(_ method: PaymentMethod) -> String {
        switch method {
        case .wechatNative, .wechatH5, .wechatJSAPI, .wechatApp, .wechatMiniProgram, .wechatBarcode: pick("微信支付", "WeChat Pay")
        case .alipayPage, .alipayWap, .alipayApp, .alipayQR, .alipayBarcode: pick("支付宝", "Alipay")
        case .applePay: "Apple Pay"
        case .unionpayApplePay: pick("Apple Pay（银联）", "Apple Pay (UnionPay)")
        case .unionpayApp: pick("云闪付", "UnionPay")
        }
    }
}

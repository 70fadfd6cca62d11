import Cashier

/// Where the payer opened the checkout page, read from the User-Agent: what decides which
/// wallets can work there.
///
/// | where | offered |
/// |---|---|
/// | WeChat's browser (`MicroMessenger`) | WeChat Pay JSAPI (Alipay is blocked inside WeChat) |
/// | Alipay's browser (`AlipayClient`) | Alipay wap |
/// | a mobile browser | WeChat Pay H5, Alipay wap, Apple Pay in Safari, UnionPay's Apple Pay in Safari on iOS |
/// | a desktop browser | WeChat Pay QR (Native), Alipay page, Apple Pay in Safari |
struct PayerDevice: Equatable, Sendable {
    enum Place: String, Sendable {
        case wechat, alipay, mobile, desktop
    }

    let place: Place
    /// Safari (macOS or iOS), where Apple Pay on the web may be available (the page's script
    /// asks `ApplePaySession.canMakePayments()` before showing it).
    let safari: Bool
    /// An iPhone, iPad or iPod: where UnionPay's Apple Pay (`unionpay.applepay`) can be paid.
    let ios: Bool

    init(userAgent: String?) {
        let agent = userAgent ?? ""
        if agent.contains("MicroMessenger") {
            place = .wechat
        } else if agent.contains("AlipayClient") {
            place = .alipay
        } else if ["Mobile", "Android", "iPhone", "iPad", "iPod"].contains(where: agent.contains) {
            place = .mobile
        } else {
            place = .desktop
        }
        ios = place == .mobile && ["iPhone", "iPad", "iPod"].contains(where: agent.contains)
        // Every iOS browser says "Safari"; only Safari itself has "Version/" without another browser's mark.
        safari =
            place != .wechat && place != .alipay && agent.contains("Safari/") && agent.contains("Version/")
            && !["Chrome/", "Chromium/", "CriOS/", "FxiOS/", "EdgiOS/", "Edg/", "OPR/", "Android"].contains(where: agent.contains)
    }

    /// The methods that can work here, best first.
    var methods: [PaymentMethod] {
        switch place {
        case .wechat: [.wechatJSAPI]
        case .alipay: [.alipayWap]
        case .mobile: (safari ? [.applePay] : []) + (safari && ios ? [.unionpayApplePay] : []) + [.wechatH5, .alipayWap]
        case .desktop: (safari ? [.applePay] : []) + [.wechatNative, .alipayPage]
        }
    }
}

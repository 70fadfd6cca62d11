public import Cashier
public import Foundation
public import WeChatPay

/// How the hosted checkout page (`/pay/{order_id}`) behaves: where it may send the payer back,
/// and which methods it may offer.
public struct CheckoutSettings: Sendable {
    /// Origins (`https://shop.example.com`) a `return_url` may point to; the page never
    /// redirects anywhere else (no open redirect). Empty: no `return_url` is accepted.
    public var returnOrigins: [String]
    /// The methods the page may offer, when the merchant wants fewer than every configured one.
    public var methods: Set<PaymentMethod>?

    public init(returnOrigins: [String] = [], methods: Set<PaymentMethod>? = nil) {
        self.returnOrigins = returnOrigins.compactMap(Self.origin)
        self.methods = methods
    }

    /// The methods a hosted page can start (the others need an app or a mini program).
    public static let pageMethods: [PaymentMethod] = [.wechatNative, .wechatH5, .wechatJSAPI, .alipayPage, .alipayWap, .applePay]

    /// `scheme://host[:port]` of an http(s) URL, lowercased, without a default port; `nil` for
    /// anything else (`javascript:`, a relative path, `//host`, credentials in the authority).
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host?.lowercased(), !host.isEmpty,
            components.user == nil, components.password == nil
        else { return nil }
        let port = components.port.flatMap { ($0 == 443 && scheme == "https") || ($0 == 80 && scheme == "http") ? nil : $0 }
        return "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }

    /// `url` when its origin is one of ``returnOrigins`` (or `own`: this server's, where the
    /// hosted checkout sends a payer back to itself).
    /// - Throws: a message saying what to configure, for anything else.
    public func checkedReturnURL(_ url: String, own: String? = nil) throws -> String {
        guard let origin = Self.origin(of: url) else {
            throw RequestProblem.unprocessable("return_url '\(url)' is not an absolute http(s) URL")
        }
        if let own, Self.origin(of: own) == origin { return url }
        guard returnOrigins.contains(origin) else {
            throw RequestProblem.unprocessable(
                returnOrigins.isEmpty
                    ? "return_url is not accepted: list your site's origin in checkout.return_origins"
                    : "return_url's origin \(origin) is not one of checkout.return_origins (\(returnOrigins.joined(separator: ", ")))")
        }
        return url
    }
}

/// A WeChat official account (公众号): how a payer in WeChat's browser is identified for JSAPI
/// payments (web authorisation gives the payer's openid under this appid). Its secret stays here.
public struct OfficialAccountSettings: Sendable {
    public var appID: String
    public var secret: String
    public var baseURL: URL
    public var authorizeURL: URL

    public init(
        appID: String, secret: String, baseURL: URL = WeChatPay.OfficialAccount.productionURL,
        authorizeURL: URL = WeChatPay.OfficialAccount.productionAuthorizeURL
    ) {
        self.appID = appID
        self.secret = secret
        self.baseURL = baseURL
        self.authorizeURL = authorizeURL
    }
}

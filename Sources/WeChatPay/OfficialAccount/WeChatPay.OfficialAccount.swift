public import Cashier
public import Foundation

extension WeChatPay {
    /// An official account's web authorisation (网页授权), the step before JSAPI payment in
    /// WeChat's own browser: the page sends the payer to ``authorizeURL(redirectURI:state:)``
    /// (`snsapi_base`: silent, no consent screen); WeChat comes back to `redirectURI` with
    /// `?code=…&state=…`; the server exchanges the code for the payer's openid
    /// (``openID(code:)``) with the account's secret, which never reaches the browser.
    ///
    /// ```swift
    /// let account = WeChatPay.OfficialAccount(appID: "wx…", secret: secret)
    /// let redirect = account.authorizeURL(redirectURI: "https://pay.example.com/pay/ord_1/wechat", state: "s")
    /// // … WeChat calls back with ?code=…
    /// let openID = try await account.openID(code: code)
    /// ```
    public struct OfficialAccount: Sendable {
        /// WeChat's authorisation page host.
        public static let productionAuthorizeURL = URL(string: "https://open.weixin.qq.com")!
        /// WeChat's API host for `sns/oauth2/access_token`.
        public static let productionURL = URL(string: "https://api.weixin.qq.com")!

        public let appID: String
        private let secret: String
        private let transport: any HTTPTransport
        private let baseURL: String
        private let authorizeBase: String

        public init(
            appID: String, secret: String, transport: any HTTPTransport = URLSessionTransport(), baseURL: URL = productionURL,
            authorizeURL: URL = productionAuthorizeURL
        ) {
            self.appID = appID
            self.secret = secret
            self.transport = transport
            self.baseURL = baseURL.trimmedBase
            self.authorizeBase = authorizeURL.trimmedBase
        }

        /// Where to send the payer: `/connect/oauth2/authorize?appid=…&redirect_uri=…&response_type=code&scope=snsapi_base&state=…#wechat_redirect`
        /// (the parameters in the order WeChat documents them; it refuses others).
        public func authorizeURL(redirectURI: String, state: String) -> String {
            let query = FormEncoding.encode([
                ("appid", appID), ("redirect_uri", redirectURI), ("response_type", "code"), ("scope", "snsapi_base"), ("state", state),
            ])
            return authorizeBase + "/connect/oauth2/authorize?" + query + "#wechat_redirect"
        }

        /// Exchanges the code WeChat sent back for the payer's openid under this account.
        /// - Throws: `PaymentError.providerRejected` with WeChat's `errcode`/`errmsg` (40029 invalid
        ///   code, 40163 code already used, …); `.transport` when WeChat does not answer.
        public func openID(code: String) async throws -> String {
            let answer = try await WeChatPay.snsCall(
                baseURL + "/sns/oauth2/access_token",
                ["appid": appID, "secret": secret, "code": code, "grant_type": "authorization_code"], transport: transport,
                what: "oauth2/access_token")
            guard let openID = answer["openid"] as? String, !openID.isEmpty else {
                throw PaymentError(.providerRejected, provider: .wechatV3, "oauth2/access_token answered no openid")
            }
            return openID
        }
    }

    /// A GET to one of WeChat's `sns` endpoints (`jscode2session`, `oauth2/access_token`): the JSON
    /// object it answered, or its `errcode`/`errmsg` as a refusal.
    static func snsCall(_ url: String, _ query: KeyValuePairs<String, String>, transport: any HTTPTransport, what: String) async throws
        -> [String: Any]
    {
        var components = URLComponents(string: url)!
        components.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) }
        let response = try await transport.send(HTTPRequest(method: "GET", url: components.url!))
        guard response.status == 200, let answer = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] else {
            throw PaymentError(.transport, provider: .wechatV3, "\(what) answered HTTP \(response.status) with no usable body")
        }
        if let code = answer["errcode"] as? Int, code != 0 {
            throw PaymentError(
                .providerRejected, provider: .wechatV3, "\(what) refused the code", providerCode: String(code),
                providerMessage: answer["errmsg"] as? String)
        }
        return answer
    }
}

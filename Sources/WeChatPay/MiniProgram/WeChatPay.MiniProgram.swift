public import Cashier
public import Foundation

extension WeChatPay {
    /// Mini programs: `wx.login` gives the app a one-time code; the server exchanges it for the
    /// payer's `openid` (needed by JSAPI orders) with the mini program's secret, never the app.
    public struct MiniProgram: Sendable {
        /// WeChat's API host for `jscode2session`.
        public static let productionURL = URL(string: "https://api.weixin.qq.com")!

        /// What `jscode2session` answered. `sessionKey` is a secret: keep it on the server, never log it.
        public struct Session: Sendable, CustomStringConvertible {
            public let openID: String
            public let unionID: String?
            public let sessionKey: String

            public var description: String { "MiniProgram.Session(openid: \(openID))" }
        }

        private let appID: String
        private let secret: String
        private let transport: any HTTPTransport
        private let baseURL: String

        public init(appID: String, secret: String, transport: any HTTPTransport = URLSessionTransport(), baseURL: URL = productionURL) {
            self.appID = appID
            self.secret = secret
            self.transport = transport
            self.baseURL = baseURL.trimmedBase
        }

        /// Exchanges a `wx.login` code for the payer's session.
        /// - Throws: `PaymentError.providerRejected` with WeChat's `errcode`/`errmsg` (40029 invalid
        ///   code, 40163 code already used, …); `.transport` when WeChat does not answer.
        public func session(code: String) async throws -> Session {
            let answer = try await WeChatPay.snsCall(
                baseURL + "/sns/jscode2session", ["appid": appID, "secret": secret, "js_code": code, "grant_type": "authorization_code"],
                transport: transport, what: "jscode2session")
            guard let openID = answer["openid"] as? String, let sessionKey = answer["session_key"] as? String else {
                throw PaymentError(.providerRejected, provider: .wechatV3, "jscode2session answered no openid or session_key")
            }
            return Session(openID: openID, unionID: answer["unionid"] as? String, sessionKey: sessionKey)
        }
    }
}

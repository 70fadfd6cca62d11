import Cashier
import CashierCrypto
import CashierHTTP
import CashierWeb
import Foundation

/// WeChat's account APIs that give a server the payer's openid, as the sandbox plays them:
///
/// - `GET /sns/jscode2session` (mini programs): any non-empty code is valid once; the same app
///   and code always give the same openid, as a real payer would have.
/// - `GET /connect/oauth2/authorize?appid=…&redirect_uri=…&response_type=code&scope=snsapi_base&state=…`
///   (official accounts' web authorisation): only in WeChat's browser (a `MicroMessenger`
///   User-Agent), as the real page; `snsapi_base` is silent, so the browser goes straight back to
///   `redirect_uri?code=…&state=…`. The payer is the same across visits (a cookie stands for
///   the WeChat account signed in on the phone).
/// - `GET /sns/oauth2/access_token?appid=…&secret=…&code=…&grant_type=authorization_code`: the
///   code (once, within five minutes) for `{"access_token", "openid", "scope", …}`.
actor WeChatAccountsSandbox {
    /// App id → app secret, mini programs and official accounts alike.
    private let secrets: [String: String]
    private var used = Set<String>()
    /// OAuth codes not yet exchanged: code → (app, openid, issued).
    private var codes: [String: (appID: String, openID: String, issued: Date)] = [:]

    init(secrets: [String: String]) {
        self.secrets = secrets
    }

    nonisolated func register(on router: inout Router) {
        router.add("GET", "/sns/jscode2session") { request, _ in await self.session(request) }
        router.add("GET", "/connect/oauth2/authorize") { request, _ in await self.authorize(request) }
        router.add("GET", "/sns/oauth2/access_token") { request, _ in await self.accessToken(request) }
    }

    private static func answer(_ object: [String: Any]) -> HTTPServerResponse { .json(object: object) }

    private static func refuse(_ code: Int, _ message: String) -> HTTPServerResponse { answer(["errcode": code, "errmsg": message]) }

    /// The app's secret checked as WeChat does: an unknown app, then a wrong secret, then the grant type.
    private func checkApp(_ request: HTTPServerRequest) -> (appID: String, refusal: HTTPServerResponse?) {
        guard let appID = request.queryValue("appid"), let secret = secrets[appID] else { return ("", Self.refuse(40013, "invalid appid")) }
        guard let given = request.queryValue("secret"), ConstantTime.equals(given, secret) else {
            return (appID, Self.refuse(40125, "invalid appsecret"))
        }
        guard request.queryValue("grant_type") == "authorization_code" else { return (appID, Self.refuse(40002, "invalid grant_type")) }
        return (appID, nil)
    }

    private func session(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let (appID, refusal) = checkApp(request)
        if let refusal { return refusal }
        guard let code = request.queryValue("js_code"), !code.isEmpty else { return Self.refuse(40029, "invalid code") }
        guard used.insert(appID + "\n" + code).inserted else { return Self.refuse(40163, "code been used") }
        let sessionKey = Base64.encode(SecureRandom.bytes(count: 16))
        return Self.answer(["openid": Self.openID(appID, code), "session_key": sessionKey])
    }

    /// The same app and user always give the same openid.
    private static func openID(_ appID: String, _ user: String) -> String {
        "o" + String(Base64.encode(DigestAlgorithm.sha256.hash(appID + "\n" + user), urlSafe: true).prefix(27))
    }

    private static let userCookie = "sandbox_wechat_user"

    private func authorize(_ request: HTTPServerRequest) -> HTTPServerResponse {
        func page(_ status: Int, _ title: String, _ text: String) -> HTTPServerResponse {
            HTMLPage(
                title: title,
                body: "<main class=\"cashier\"><h1>\(HTMLText.escape(title))</h1><p id=\"notice\">\(HTMLText.escape(text))</p></main>",
                status: status
            ).response()
        }
        guard request.headers["User-Agent"]?.contains("MicroMessenger") == true else {
            return page(403, "请在微信客户端打开链接", "Open this link in WeChat: web authorisation works only in WeChat's browser.")
        }
        guard let appID = request.queryValue("appid"), secrets[appID] != nil else {
            return page(400, "参数错误", "appid is not an official account this sandbox knows (10003 redirect_uri / appid mismatch).")
        }
        guard request.queryValue("response_type") == "code",
            ["snsapi_base", "snsapi_userinfo"].contains(request.queryValue("scope") ?? ""),
            let redirect = request.queryValue("redirect_uri"), let target = URLComponents(string: redirect),
            ["http", "https"].contains(target.scheme ?? ""), target.host != nil
        else { return page(400, "参数错误", "response_type=code, scope=snsapi_base and an absolute redirect_uri are required.") }
        // The WeChat user signed in on this phone: one per browser, kept in a cookie.
        let cookie = request.headers["Cookie"]?.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(Self.userCookie + "=") }.map { String($0.dropFirst(Self.userCookie.count + 1)) }
        let user = cookie ?? SecureRandom.alphanumeric(count: 16)
        let code = "0" + SecureRandom.alphanumeric(count: 31)
        codes[code] = (appID, Self.openID(appID, user), Date())
        var back = target
        back.queryItems =
            (target.queryItems ?? []) + [
                URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: request.queryValue("state") ?? ""),
            ]
        return HTTPServerResponse(
            status: 302,
            headers: [
                "Location": back.string ?? redirect, "Set-Cookie": "\(Self.userCookie)=\(user); Path=/; HttpOnly; SameSite=Lax",
            ])
    }

    private func accessToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let (appID, refusal) = checkApp(request)
        if let refusal { return refusal }
        guard let code = request.queryValue("code"), let issued = codes[code], issued.appID == appID else {
            return Self.refuse(40029, "invalid code")
        }
        codes[code] = nil  // once
        guard Date().timeIntervalSince(issued.issued) < 300 else { return Self.refuse(42003, "code expired") }
        return Self.answer([
            "access_token": SecureRandom.alphanumeric(count: 64), "expires_in": 7200, "refresh_token": SecureRandom.alphanumeric(count: 64),
            "openid": issued.openID, "scope": "snsapi_base",
        ])
    }
}

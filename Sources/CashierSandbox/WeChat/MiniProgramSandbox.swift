import CashierCrypto
import CashierHTTP
import Foundation

/// The sandbox's `GET /sns/jscode2session`: any non-empty code is valid once; the same app and
/// code always give the same openid, as a real payer would have.
actor MiniProgramSandbox {
    private let secrets: [String: String]
    private var used = Set<String>()

    /// - Parameter secrets: mini program app id → app secret.
    init(secrets: [String: String]) {
        self.secrets = secrets
    }

    nonisolated func register(on router: inout Router) {
        router.add("GET", "/sns/jscode2session") { request, _ in
            await self.session(request)
        }
    }

    private func session(_ request: HTTPServerRequest) -> HTTPServerResponse {
        func answer(_ object: [String: Any]) -> HTTPServerResponse {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(data))
        }
        func refuse(_ code: Int, _ message: String) -> HTTPServerResponse {
            answer(["errcode": code, "errmsg": message])
        }
        guard let appID = request.queryValue("appid"), let secret = secrets[appID] else { return refuse(40013, "invalid appid") }
        guard let given = request.queryValue("secret"), ConstantTime.equals(given, secret) else {
            return refuse(40125, "invalid appsecret")
        }
        guard request.queryValue("grant_type") == "authorization_code" else { return refuse(40002, "invalid grant_type") }
        guard let code = request.queryValue("js_code"), !code.isEmpty else { return refuse(40029, "invalid code") }
        guard used.insert(appID + "\n" + code).inserted else { return refuse(40163, "code been used") }
        let digest = DigestAlgorithm.sha256.hash(appID + "\n" + code)
        let openID = "o" + String(Base64.encode(digest, urlSafe: true).prefix(27))
        let sessionKey = Base64.encode(SecureRandom.bytes(count: 16))
        return answer(["openid": openID, "session_key": sessionKey])
    }
}

import CashierCrypto
import CashierHTTP
import Foundation
import WeChatPay

/// How the v3 gateway checks who is calling: one check for every route, over the request's body
/// or — for a media upload — its `meta` JSON, which is all WeChat signs there.
extension WeChatV3Sandbox {
    /// The merchant whose `Authorization` signs `request` as WeChat checks it (a known `mchid`, its
    /// certificate's `serial_no`, a timestamp within 5 minutes, SHA256withRSA over the canonical
    /// request with `signedBody` — the body, or a media upload's `meta`), or WeChat's refusal.
    func authenticate(_ request: HTTPServerRequest, prefix: String, signedBody: String) -> Result<Merchant, Refusal> {
        let path = String(request.path.dropFirst(prefix.count))
        let queryString = request.query.filter { !$0.name.isEmpty }.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        guard let fields = request.headers["Authorization"].flatMap(WeChatPay.V3.RequestSigner.parse(authorization:)),
            let mchID = fields["mchid"], let merchant = merchants[mchID], let serial = fields["serial_no"],
            let merchantKey = certificateKey(merchant, serial: serial),
            let timestamp = fields["timestamp"].flatMap(Int.init), let nonce = fields["nonce_str"], let signature = fields["signature"],
            abs(Int(Date().timeIntervalSince1970) - timestamp) <= 300
        else {
            return .failure(Refusal(error(401, "SIGN_ERROR", "Authorization 无效或商户证书序列号不匹配")))
        }
        // The path arrives decoded: a `|` (which an out_order_no may hold) was sent, and signed, as `%7C`
        // by clients that must escape it. wechatpayv3 2.0.4 signs some queries as it sends them, with
        // an empty first pair: `?&out_order_no=…`.
        let paths = path.contains("|") ? [path, path.replacingOccurrences(of: "|", with: "%7C")] : [path]
        let canonicals = paths.flatMap { path in queryString.isEmpty ? [path] : [path + "?" + queryString, path + "?&" + queryString] }
        guard let signatureBytes = try? Base64.decode(signature),
            canonicals.contains(where: { url in
                let message = WeChatPay.V3.RequestSigner.message(
                    method: request.method, canonicalURL: url, timestamp: timestamp, nonce: nonce, body: signedBody)
                return merchantKey.isValidSignature(signatureBytes, for: Array(message.utf8), scheme: .insecurePKCS1v1_5SHA256)
            })
        else {
            return .failure(Refusal(error(401, "SIGN_ERROR", "签名错误")))
        }
        return .success(merchant)
    }

    /// A refusal as an error, for ``authenticate(_:prefix:signedBody:)``'s result.
    struct Refusal: Error {
        let response: HTTPServerResponse
        init(_ response: HTTPServerResponse) { self.response = response }
    }
}

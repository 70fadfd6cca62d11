public import CashierCrypto
public import Foundation

extension WeChatPay.V3 {
    /// Signs outgoing v3 requests: `Authorization: WECHATPAY2-SHA256-RSA2048 mchid="…",…`.
    ///
    /// The signed message is `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n` (an empty body for GET,
    /// the trailing newline always), signed with SHA256withRSA by the merchant API key.
    public enum RequestSigner {
        /// The exact message that is signed.
        public static func message(method: String, canonicalURL: String, timestamp: Int, nonce: String, body: String) -> String {
            "\(method)\n\(canonicalURL)\n\(timestamp)\n\(nonce)\n\(body)\n"
        }

        /// The `Authorization` header value.
        /// - Parameters:
        ///   - method: `GET`, `POST`, …
        ///   - canonicalURL: the path and query as sent, e.g. `/v3/pay/transactions/id/4200…?mchid=1230000109`.
        ///   - timestamp: Unix seconds.
        ///   - nonce: a random string, new for each request.
        ///   - body: the JSON body as sent (empty for `GET`).
        ///   - merchant: whose key signs it.
        public static func authorization(
            method: String,
            canonicalURL: String,
            body: String,
            merchant: Merchant,
            timestamp: Int = Int(Date().timeIntervalSince1970),
            nonce: String = SecureRandom.alphanumeric(count: 32)
        ) throws -> String {
            let signed = message(method: method, canonicalURL: canonicalURL, timestamp: timestamp, nonce: nonce, body: body)
            let signature = try merchant.privateKey.signature(for: signed, scheme: .insecurePKCS1v1_5SHA256)
            return "WECHATPAY2-SHA256-RSA2048 mchid=\"\(merchant.mchID)\",nonce_str=\"\(nonce)\",signature=\"\(Base64.encode(signature))\","
                + "timestamp=\"\(timestamp)\",serial_no=\"\(merchant.certificateSerial)\""
        }

        /// The `key="value"` pairs of an `Authorization` header, or `nil` when it is not a
        /// `WECHATPAY2-SHA256-RSA2048` header.
        public static func parse(authorization: String) -> [String: String]? {
            let scheme = "WECHATPAY2-SHA256-RSA2048 "
            guard authorization.hasPrefix(scheme) else { return nil }
            var fields: [String: String] = [:]
            for part in authorization.dropFirst(scheme.count).split(separator: ",") {
                guard let equals = part.firstIndex(of: "=") else { return nil }
                let key = part[..<equals].trimmingCharacters(in: .whitespaces)
                var value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else { return nil }
                value = String(value.dropFirst().dropLast())
                fields[key] = value
            }
            return fields
        }
    }
}

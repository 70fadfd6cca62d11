import CashierCrypto
public import Foundation

/// The `Cashier-Signature` header on outgoing webhooks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
/// "t.body" under the endpoint's secret>`. Receivers check it with ``verify(header:body:secret:tolerance:now:)``.
public enum WebhookSignature {
    /// The header value for `body` sent at `timestamp`.
    public static func header(body: [UInt8], secret: String, timestamp: Date = Date()) -> String {
        let seconds = Int64(timestamp.timeIntervalSince1970)
        let mac = HMACKey(key: Array(secret.utf8)).authenticationCode(for: Array("\(seconds).".utf8) + body)
        return "t=\(seconds),v1=\(Hex.encode(mac))"
    }

    /// `true` when `header` signs `body` under `secret` within `tolerance` seconds of `now`.
    public static func verify(header: String, body: [UInt8], secret: String, tolerance: TimeInterval = 300, now: Date = Date()) -> Bool {
        var seconds: Int64?
        var signatures: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { seconds = Int64(pair[1]) }
            if pair[0] == "v1", let bytes = try? Hex.decode(pair[1]) { signatures.append(bytes) }
        }
        guard let seconds, abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return false }
        let key = HMACKey(key: Array(secret.utf8))
        let message = Array("\(seconds).".utf8) + body
        return signatures.contains { key.isValidAuthenticationCode($0, for: message) }
    }
}

import Alipay
import CashierCrypto
import Foundation

/// `cashier-bench alipay`: Alipay async notifications verified per second through Cashier,
/// against python-alipay-sdk 3.4.0's `verify` and against `openssl speed`'s RSA-2048 verify rate,
/// all in the same run. The notification is a real Alipay-signed one from the shared vectors.
enum AlipaySuite {
    static func run(seconds: Int, report: (String) -> Void) throws {
        let vector = try loadVector()
        let key = try RSAPublicKey(pemRepresentation: vector.publicKey)
        let body = Array(Alipay.FormBody.encode(vector.fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        _ = try Alipay.Notification.verify(body, publicKey: key)
        let peer = try PythonPeer()
        let appKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let input = [
            "fields": String(decoding: try JSONSerialization.data(withJSONObject: vector.fields), as: UTF8.self),
            "public_key": vector.publicKey,
            "private_key": appKey.pkcs1PEMRepresentation, "seconds": String(seconds),
        ]
        let measureCashier = {
            try Throughput.operationsPerSecond(seconds: Double(seconds)) { _ = try Alipay.Notification.verify(body, publicKey: key) }
        }
        let python = try Throughput.bestOfAlternating(
            baseline: { try peer.operationsPerSecond(script: "alipay_notify.py", input: input, jsonFields: ["fields"]) },
            cashier: measureCashier)
        report(Throughput.line("alipay-notify", cashier: python.cashier, baseline: python.baseline, baselineName: "python_alipay_sdk"))
        let speed = OpenSSLSpeed(seconds: seconds)
        let openssl = try Throughput.bestOfAlternating(baseline: { try speed.rsa(bits: 2048).verify }, cashier: measureCashier)
        report(Throughput.line("alipay-notify-vs-openssl", cashier: openssl.cashier, baseline: openssl.baseline))
    }

    /// The vector, read from the repository (the bench runs from it).
    static func loadVector() throws -> (publicKey: String, fields: [String: String]) {
        let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            "Tests/AlipayTests/Vectors/real_signed.json")
        guard let data = FileManager.default.contents(atPath: url.path),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let trade = object["notify_trade_status_sync"] as? [String: Any], let pem = trade["alipay_public_key_pem"] as? String,
            let fields = trade["params"] as? [String: String]
        else { throw PythonPeer.Failure("run cashier-bench from the repository root (Tests/AlipayTests/Vectors/real_signed.json)") }
        return (pem, fields)
    }
}

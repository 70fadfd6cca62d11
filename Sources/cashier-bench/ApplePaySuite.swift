import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation

/// `cashier-bench applepay`: EC_v1 tokens verified (CMS signature, cached chain, OIDs, signing
/// time) and decrypted per second, against the physical limit measured by `openssl speed` in the
/// same run — one P-256 ECDH plus one ECDSA-P256 verify per token, 1 ÷ (1/ecdh + 1/verify) — and,
/// for the record, against the PyPI `applepay` package, which checks nothing.
enum ApplePaySuite {
    static func run(seconds: Int, report: (String) -> Void) throws {
        let ca = try ApplePayTestCA()
        let merchant = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.bench")
        let token = try ApplePayTokenMinter(ca: ca).mint(for: merchant, amount: Money(minorUnits: 1275, currency: .cny))
        // The bench runs for a while: a day's window keeps the minted token inside it.
        let verifier = try ApplePay.TokenVerifier(trustAnchors: [ca.root], window: 86_400)
        let decrypter = ApplePay.TokenDecrypter(merchantKeys: [merchant], verifier: verifier)
        let expected = try decrypter.decrypt(token)
        let measureCashier = {
            try Throughput.operationsPerSecond(seconds: Double(seconds)) { _ = try decrypter.decrypt(token) }
        }
        let speed = OpenSSLSpeed(seconds: seconds)
        let limit = try Throughput.bestOfAlternating(
            baseline: {
                let ecdh = try speed.ecdhP256()
                let verify = try speed.ecdsaP256().verify
                return 1 / (1 / ecdh + 1 / verify)
            }, cashier: measureCashier)
        report(Throughput.line("applepay-ec", cashier: limit.cashier, baseline: limit.baseline, baselineName: "ecdh_plus_ecdsa_verify"))

        guard case .p256(let key) = merchant.privateKey else { return }
        let peer = try PythonPeer()
        let input = [
            "certificate": merchant.certificate.pemRepresentation, "private_key": key.pemRepresentation,
            "root_der_base64": Base64.encode(ca.root.derRepresentation), "ephemeral_public_key": token.header.ephemeralPublicKey ?? "",
            "data": token.data, "expected": String(decoding: try JSONEncoder().encode(expected), as: UTF8.self), "seconds": String(seconds),
        ]
        let pypi = try Throughput.bestOfAlternating(
            baseline: { try peer.operationsPerSecond(script: "applepay_decrypt.py", input: input) }, cashier: measureCashier)
        report(Throughput.line("applepay-ec-vs-pypi", cashier: pypi.cashier, baseline: pypi.baseline, baselineName: "pypi_applepay"))
    }
}

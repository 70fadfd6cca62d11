import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation

/// `cashier-bench applepay`: EC_v1 tokens verified (CMS signature, cached chain, OIDs, signing
/// time) and decrypted per second, against the physical limit measured by `openssl speed` in the
/// same run — one P-256 ECDH plus one ECDSA-P256 verify per token, 1 ÷ (1/ecdh + 1/verify) — and,
/// for the record, against the PyPI `applepay` package, which checks nothing.
///
/// Two more lines say where a token's time goes, all measured in the same run:
/// `applepay-ec-ops` puts each elliptic-curve operation as a token needs it (the CMS signature
/// check with its hashing; the ECDH with the peer point's import and curve check) against
/// `openssl speed`'s rate for the bare operation, and `applepay-ec-parts` gives every step's
/// share of a whole token (`rest` is what no step accounts for: the calls between them).
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
        var best = (ecdh: 0.0, verify: 0.0)
        let limit = try Throughput.bestOfAlternating(
            baseline: {
                let ecdh = try speed.ecdhP256()
                let verify = try speed.ecdsaP256().verify
                best = (max(best.ecdh, ecdh), max(best.verify, verify))
                return 1 / (1 / ecdh + 1 / verify)
            }, cashier: measureCashier)
        report(Throughput.line("applepay-ec", cashier: limit.cashier, baseline: limit.baseline, baselineName: "ecdh_plus_ecdsa_verify"))
        try reportParts(token: token, decrypter: decrypter, seconds: seconds, opensslRates: best, report: report)

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

    /// The `applepay-ec-ops` and `applepay-ec-parts` lines (see the type's documentation).
    private static func reportParts(
        token: ApplePay.PaymentToken, decrypter: ApplePay.TokenDecrypter, seconds: Int, opensslRates: (ecdh: Double, verify: Double),
        report: (String) -> Void
    ) throws {
        guard let merchant = decrypter.merchantKeys.first, case .p256(let key) = merchant.privateKey,
            let encodedKey = token.header.ephemeralPublicKey
        else { return }
        let peerPoint = try Base64.decodeBytes(encodedKey)
        let data = try Base64.decodeBytes(token.data)
        let signature = try Base64.decodeBytes(token.signature)
        let content = try token.signedContent()
        let secret = try key.sharedSecret(withPeerPoint: peerPoint)
        let symmetricKey = ApplePay.ecSymmetricKey(sharedSecret: secret, merchantIdentifierHash: merchant.merchantIdentifierHash)
        let plaintext = Data(try ApplePay.decryptData(data, symmetricKey: symmetricKey))
        // TokenVerifier's own CMS check, without the chain (cached) and signing-time checks around it.
        let signatures = CMSDetachedVerifier()
        // A shorter window for each part: seven measurements follow.
        let partSeconds = max(0.5, Double(seconds) / 2)
        func microseconds(_ operation: () throws -> Void) rethrows -> Double {
            1e6 / (try Throughput.operationsPerSecond(seconds: partSeconds, operation))
        }
        let parts: [(String, Double)] = [
            ("cms_verify", try microseconds { _ = try signatures.verify(signature: signature, content: content) }),
            ("ecdh", try microseconds { _ = try key.sharedSecret(withPeerPoint: peerPoint) }),
            // What PaymentToken.decoded() does: base64 of the key, data and signature, hex of the ids.
            (
                "fields",
                try microseconds {
                    _ = try token.signedContent()
                    _ = try Base64.decodeBytes(token.signature)
                }
            ),
            (
                "kdf",
                microseconds { _ = ApplePay.ecSymmetricKey(sharedSecret: secret, merchantIdentifierHash: merchant.merchantIdentifierHash) }
            ),
            ("aes_gcm", try microseconds { _ = try ApplePay.decryptData(data, symmetricKey: symmetricKey) }),
            ("json", microseconds { _ = ApplePay.DecryptedPayment(json: plaintext) }),
        ]
        let whole = try microseconds { _ = try decrypter.decrypt(token) }
        let cms = parts[0].1
        let ecdh = parts[1].1
        report(
            "applepay-ec-ops verify_vs_openssl=\(String(format: "%.2f", 1e6 / opensslRates.verify / cms)) "
                + "ecdh_vs_openssl=\(String(format: "%.2f", 1e6 / opensslRates.ecdh / ecdh))")
        let shares = parts.map { "\($0.0)=\(String(format: "%.3f", $0.1 / whole))" }
        let rest = 1 - parts.map(\.1).reduce(0, +) / whole
        report("applepay-ec-parts " + shares.joined(separator: " ") + " rest=\(String(format: "%.3f", rest))")
    }
}

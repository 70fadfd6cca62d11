import CashierCrypto

/// `cashier-bench crypto`: CashierCrypto against `openssl speed` on the same machine.
///
/// Each figure is the same operation both ways: RSA-2048 SHA256withRSA sign and verify,
/// P-256 ECDH, ECDSA-P256 verify, AES-256-GCM sealing 1 KiB with 13 bytes of associated data,
/// and HMAC-SHA256 over 1 KiB. A ratio near 1 means the wrapper adds almost nothing.
///
/// These machines are noisy, so each side is measured three times, alternating, and the best
/// of each is compared.
enum CryptoSuite {
    static func run(seconds: Int, report: (String) -> Void) throws {
        let speed = OpenSSLSpeed(seconds: seconds)
        let duration = Double(seconds)
        func compare(_ name: String, openssl: () throws -> Double, cashier: () throws -> Void) throws {
            let best = try Throughput.bestOfAlternating(
                baseline: openssl, cashier: { try Throughput.operationsPerSecond(seconds: duration, cashier) })
            report(Throughput.line(name, cashier: best.cashier, baseline: best.baseline))
        }

        let rsa = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let rsaPublic = rsa.publicKey
        let message = SecureRandom.bytes(count: 32)
        let rsaSignature = try rsa.signature(for: message, scheme: .insecurePKCS1v1_5SHA256)
        try compare(
            "rsa2048-sign", openssl: { try speed.rsa(bits: 2048).sign },
            cashier: {
                _ = try rsa.signature(for: message, scheme: .insecurePKCS1v1_5SHA256)
            })
        try compare(
            "rsa2048-verify", openssl: { try speed.rsa(bits: 2048).verify },
            cashier: {
                precondition(rsaPublic.isValidSignature(rsaSignature, for: message, scheme: .insecurePKCS1v1_5SHA256))
            })

        let merchant = try P256PrivateKey()
        let peer = try P256PrivateKey().publicKey
        try compare("ecdh-p256", openssl: speed.ecdhP256, cashier: { _ = try merchant.sharedSecret(with: peer) })

        let ecdsaSignature = try merchant.signature(for: message)
        let merchantPublic = merchant.publicKey
        try compare(
            "ecdsa-p256-verify", openssl: { try speed.ecdsaP256().verify },
            cashier: {
                precondition(merchantPublic.isValidSignature(ecdsaSignature, for: message))
            })

        let aes = try AESGCMKey(SecureRandom.bytes(count: 32))
        let kilobyte = SecureRandom.bytes(count: 1024)
        let iv = SecureRandom.bytes(count: 12)
        let aad = SecureRandom.bytes(count: 13)
        try compare(
            "aes-256-gcm-1k", openssl: { try speed.aead(cipher: "aes-256-gcm", bytes: 1024) },
            cashier: {
                _ = try aes.seal(kilobyte, iv: iv, authenticating: aad)
            })

        let hmacKey = HMACKey(key: SecureRandom.bytes(count: 32))
        try compare(
            "hmac-sha256-1k", openssl: { try speed.hmac(digest: "sha256", bytes: 1024) },
            cashier: {
                _ = hmacKey.authenticationCode(for: kilobyte)
            })
    }
}

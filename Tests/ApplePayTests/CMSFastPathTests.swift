import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Testing

/// The CMS fast path (a direct SignerInfo check with cached certificates) must agree with
/// OpenSSL's CMS_verify on every token and every damaged variant: same verdict, same signer,
/// same signing time.
@Suite struct CMSFastPathTests {
    static func tokens() throws -> [ApplePay.PaymentToken] {
        let ca = try ApplePayTestCA()
        let minter = ApplePayTokenMinter(ca: ca)
        let ec = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.fast")
        let rsa = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.fast", rsa: true)
        let amount = Money(minorUnits: 1275, currency: .cny)
        var tokens = [
            try minter.mint(for: ec, amount: amount), try minter.mint(for: rsa, amount: amount),
            try minter.mint(for: ec, amount: amount, applicationData: Array("ord".utf8)),
        ]
        for name in ["gala-2014-token.json", "processout-2017-token-ec.json", "processout-2017-token-rsa.json"] {
            tokens.append(try ApplePay.PaymentToken(json: try RealTokenTests.data(name)))
        }
        return tokens
    }

    /// (signature DER, content) pairs: the genuine one and damaged variants.
    static func cases(_ token: ApplePay.PaymentToken) throws -> [([UInt8], [UInt8])] {
        let signature = Array(try Base64.decode(token.signature))
        let content = try token.signedContent()
        var result = [(signature, content)]
        var otherContent = content
        otherContent[otherContent.count / 2] ^= 0x01
        result.append((signature, otherContent))
        // Flip one byte at several places across the structure (attributes, signature, certificates).
        for fraction in [0.2, 0.5, 0.8, 0.9, 0.97, 0.995] {
            var damaged = signature
            damaged[Int(Double(damaged.count) * fraction)] ^= 0x01
            result.append((damaged, content))
        }
        result.append((Array(signature.prefix(signature.count - 10)), content))
        return result
    }

    @Test func fastPathAgreesWithOpenSSL() throws {
        let fast = CMSDetachedVerifier(fastPath: true)
        let openssl = CMSDetachedVerifier(fastPath: false)
        var compared = 0
        for token in try Self.tokens() {
            for (signature, content) in try Self.cases(token) {
                let a = Result { try fast.verify(signature: signature, content: content) }
                let b = Result { try openssl.verify(signature: signature, content: content) }
                switch (a, b) {
                case (.success(let x), .success(let y)):
                    #expect(x.signer == y.signer && x.signingTime == y.signingTime)
                case (.failure, .failure): break
                default: Issue.record("fast path and OpenSSL disagree: fast \(a), OpenSSL \(b)")
                }
                compared += 1
            }
        }
        #expect(compared == 6 * 9)
        // The genuine tokens do verify (the agreement above is not all failures).
        for token in try Self.tokens() {
            _ = try fast.verify(signature: Array(try Base64.decode(token.signature)), content: try token.signedContent())
        }
    }
}

import ApplePay
import Cashier
import CashierCrypto
import Foundation
import Testing

/// The real tokens in the shared vectors (see Vectors/LICENSE.*): gala-2014 (EC_v1, with its
/// merchant key) and processout-2017 (EC_v1 and RSA_v1, without merchant keys but with their
/// published symmetric keys).
@Suite struct RealTokenTests {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors"))
        return try Data(contentsOf: url)
    }

    static func text(_ name: String) throws -> String { String(decoding: try data(name), as: UTF8.self) }

    static let galaSigned = Date(timeIntervalSince1970: 1_414_439_503)  // 2014-10-27 19:51:43 UTC

    static func verifier(at date: Date) throws -> ApplePay.TokenVerifier {
        try ApplePay.TokenVerifier(clock: { date })
    }

    @Test func galaDecryptsAtItsSigningTimeAndIsRefusedToday() throws {
        let token = try ApplePay.PaymentToken(json: try Self.data("gala-2014-token.json"))
        #expect(token.version == .ecV1)
        let key = try ApplePay.MerchantKey(
            certificatePEM: try Self.text("gala-2014-certificate.pem"), privateKeyPEM: try Self.text("gala-2014-private_key.pem"))
        #expect(key.publicKeyHash == token.header.publicKeyHash)
        let decrypter = ApplePay.TokenDecrypter(
            merchantKeys: [key], verifier: try Self.verifier(at: Self.galaSigned.addingTimeInterval(60)))
        let payment = try decrypter.decrypt(token)
        let expected = try JSONDecoder().decode(ApplePay.DecryptedPayment.self, from: try Self.data("gala-2014-expected_plaintext.json"))
        #expect(payment == expected)
        #expect(try payment.amount() == Money(minorUnits: 100, currency: try Currency(code: "USD")))
        #expect(!payment.description.contains(payment.applicationPrimaryAccountNumber) && payment.description.contains("4320"))
        try payment.check(total: Money(minorUnits: 100, currency: try Currency(code: "USD")))
        let wrongAmount = #expect(throws: PaymentError.self) {
            try payment.check(total: Money(minorUnits: 101, currency: try Currency(code: "USD")))
        }
        #expect(wrongAmount?.code == .amountMismatch)
        let wrongCurrency = #expect(throws: PaymentError.self) { try payment.check(total: Money(minorUnits: 100, currency: .cny)) }
        #expect(wrongCurrency?.code == .currencyMismatch)

        // Today the leaf has long expired: the chain check fails, and nothing is decrypted.
        let today = ApplePay.TokenDecrypter(merchantKeys: [key], verifier: try ApplePay.TokenVerifier())
        let refused = #expect(throws: PaymentError.self) { try today.decrypt(token) }
        #expect(refused?.details == "chain")
        // At the right time but outside the 5-minute window.
        let late = ApplePay.TokenDecrypter(merchantKeys: [key], verifier: try Self.verifier(at: Self.galaSigned.addingTimeInterval(301)))
        #expect((#expect(throws: PaymentError.self) { try late.decrypt(token) })?.details == "signing time")
        // Tampered data: the signature no longer matches.
        var tampered = token
        tampered.data = String(tampered.data.dropLast(4)) + "AAAA"
        #expect((#expect(throws: PaymentError.self) { try decrypter.decrypt(tampered) })?.details == "signature")
        // The token expects no applicationData; a caller that set one refuses it.
        #expect(
            (#expect(throws: PaymentError.self) { try decrypter.decrypt(token, applicationData: Array("order-1".utf8)) })?.details
                == "applicationData")
    }

    @Test(arguments: [
        ("ec", "0a82d78293c991ecd3db8c468ccbec1769557bf3b8ff65ab7002bf56708b9abb", 1_485_974_706.0),
        ("rsa", "da0d397afe2cdf424731824df96807ec", 1_485_986_213.0),
    ])
    func processoutTokensVerifyAndDecryptUnderTheirKeys(kind: String, keyHex: String, signed: TimeInterval) throws {
        let token = try ApplePay.PaymentToken(json: try Self.data("processout-2017-token-\(kind).json"))
        #expect(token.version == (kind == "ec" ? .ecV1 : .rsaV1))
        #expect(token.network == "Visa" || token.network == nil)
        let verified = try Self.verifier(at: Date(timeIntervalSince1970: signed)).verify(token)
        #expect(abs(verified.signingTime.timeIntervalSince1970 - signed) < 2)
        #expect(verified.signer.extension(oid: ApplePay.leafOID) != nil)
        let plaintext = try ApplePay.decryptData(Array(try Base64.decode(token.data)), symmetricKey: try Hex.decode(keyHex))
        #expect(Data(plaintext) == (try Self.data("processout-2017-expected_plaintext-\(kind).json")))
        // A key of the wrong length, or data changed in transit, is a decryption failure that says which.
        let data = Array(try Base64.decode(token.data))
        let longKey = #expect(throws: PaymentError.self) { try ApplePay.decryptData(data, symmetricKey: [UInt8](repeating: 1, count: 24)) }
        #expect(longKey?.details == "decryption")
        #expect(longKey?.message.contains("24 bytes, not 16 or 32") == true)
        var altered = data
        altered[altered.count / 2] ^= 0x01
        let changed = #expect(throws: PaymentError.self) { try ApplePay.decryptData(altered, symmetricKey: try Hex.decode(keyHex)) }
        #expect(changed?.message.contains("AES-GCM authentication failed") == true)
        // Under a root that is not Apple's, the same token fails its chain.
        let otherKey = try P256PrivateKey()
        let otherRoot = try CertificateBuilder(subject: [("CN", "Not Apple")], serialNumber: 1, isCertificateAuthority: true)
            .issue(publicKey: .p256(otherKey.publicKey), signedBy: .p256(otherKey))
        let strange = try ApplePay.TokenVerifier(trustAnchors: [otherRoot], clock: { Date(timeIntervalSince1970: signed) })
        #expect((#expect(throws: PaymentError.self) { try strange.verify(token) })?.details == "chain")
    }
}

import Cashier
import CashierCrypto
import Foundation
import TestSupport
import Testing
import UnionPay

/// UnionPay's messages are believed only when the certificate they carry is valid now, chains
/// to the configured root through the configured middle, names UnionPay as owner, and its key
/// verifies the signature over every field. Each test below breaks one of those.
@Suite struct VerifierTests {
    let pki = try! TestPKI()
    let answer: [String: String] = [
        "respCode": "00", "respMsg": "成功[0000000]", "merId": TestPKI.merchantID, "orderId": "C20261206143000A1",
        "txnTime": "20261206143000", "tn": "758492451120261206143", "txnType": "01", "encoding": "UTF-8",
    ]

    func code(_ body: () throws -> Void) -> PaymentError.Code? {
        do {
            try body()
            return nil
        } catch let error as PaymentError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func aGenuineAnswerVerifies() throws {
        let signed = try pki.signedByUnionPay(answer)
        #expect(try pki.verifier().verify(signed) == signed)
        // Twice: the second comes from the cache of verified certificates, and still checks the signature.
        #expect(code { try pki.verifier().verify(signed.merging(["tn": "1"]) { $1 }) } == .signatureMismatch)
        let verifier = try pki.verifier()
        try verifier.verify(signed)
        #expect(code { try verifier.verify(signed.merging(["respCode": "11"]) { $1 }) } == .signatureMismatch)
    }

    @Test(arguments: ["respCode", "tn", "txnAmt", "signPubKeyCert", "merId"])
    func aTamperedFieldIsRefused(field: String) throws {
        var signed = try pki.signedByUnionPay(answer.merging(["txnAmt": "1200"]) { $1 })
        signed[field] = field == "signPubKeyCert" ? try pki.signedByUnionPay([:], certificate: pki.merchant)["signPubKeyCert"] : "9"
        #expect(code { try pki.verifier().verify(signed) } == .signatureMismatch)
        // An added field breaks it too, and a dropped one.
        var added = try pki.signedByUnionPay(answer)
        added["settleAmt"] = "1"
        #expect(code { try pki.verifier().verify(added) } == .signatureMismatch)
    }

    /// Signed by another key than the carried certificate's (an impostor carrying UnionPay's real certificate).
    @Test func aSignatureByAnotherKeyIsRefused() throws {
        let forged = try pki.signedByUnionPay(answer, key: TestKeys.rsa(4))
        #expect(code { try pki.verifier().verify(forged) } == .signatureMismatch)
    }

    /// The impostor's own certificate, properly self-made: it does not chain to the configured root.
    @Test func aCertificateFromAnotherRootIsRefused() throws {
        let otherKey = TestKeys.rsa(4)
        let otherRoot = try CertificateBuilder(
            subject: [("CN", "Cashier TEST UnionPay Root")], serialNumber: 1, isCertificateAuthority: true
        )
        .issue(publicKey: .rsa(otherKey.publicKey), signedBy: .rsa(otherKey))
        let otherMiddle = try CertificateBuilder(
            subject: [("CN", "Cashier TEST UnionPay Middle")], serialNumber: 2, isCertificateAuthority: true
        )
        .issue(publicKey: .rsa(otherKey.publicKey), issuer: otherRoot, signedBy: .rsa(otherKey))
        let impostor = try TestPKI.issue(TestPKI.unionPayCN, key: TestKeys.rsa(5), serial: 7, by: (otherMiddle, otherKey))
        let forged = try pki.signedByUnionPay(answer, certificate: impostor, key: TestKeys.rsa(5))
        #expect(code { try pki.verifier().verify(forged) } == .signatureMismatch)
        // A leaf signed straight by the root, skipping the middle, chains (the root is trusted):
        // what must fail is a root that is not the configured one.
        let direct = try TestPKI.issue(TestPKI.unionPayCN, key: pki.unionPayKey, serial: 8, by: (pki.root, pki.rootKey))
        #expect(try pki.verifier().verify(try pki.signedByUnionPay(answer, certificate: direct)).isEmpty == false)
        // The middle certificate alone is not a trust anchor.
        let middleOnly = try UnionPay.Verifier(root: pki.middle, middle: pki.middle)
        #expect(code { try middleOnly.verify(try pki.signedByUnionPay(answer)) } == .signatureMismatch)
    }

    @Test func expiredAndNotYetValidCertificatesAreRefused() throws {
        let day: TimeInterval = 86_400
        let expired = try TestPKI.issue(
            TestPKI.unionPayCN, key: pki.unionPayKey, serial: 9, by: (pki.middle, pki.middleKey),
            validity: Date(timeIntervalSinceNow: -30 * day)...Date(timeIntervalSinceNow: -day))
        #expect(code { try pki.verifier().verify(try pki.signedByUnionPay(answer, certificate: expired)) } == .signatureMismatch)
        let future = try TestPKI.issue(
            TestPKI.unionPayCN, key: pki.unionPayKey, serial: 10, by: (pki.middle, pki.middleKey),
            validity: Date(timeIntervalSinceNow: day)...Date(timeIntervalSinceNow: 30 * day))
        #expect(code { try pki.verifier().verify(try pki.signedByUnionPay(answer, certificate: future)) } == .signatureMismatch)
        // The verifier's clock decides, and a cached certificate is checked again.
        let signed = try pki.signedByUnionPay(answer)
        let verifier = try pki.verifier(now: Date())
        try verifier.verify(signed)
        #expect(code { try pki.verifier(now: Date(timeIntervalSinceNow: 3 * day)).verify(signed) } == .signatureMismatch)
    }

    @Test(arguments: [
        ("041@Z2026-01-01@中国银联股份有限公司@00000001", true, true),
        ("041@Z2026-01-01@00040000:SIGN@00000001", false, true),
        ("041@Z2026-01-01@某某科技有限公司@00000001", false, false),
        ("041@中国银联股份有限公司", false, false),
        ("中国银联股份有限公司", false, false),
        ("041@Z2026-01-01@中国银联股份有限公司 @00000001", false, false),
    ])
    func theOwnerIsChecked(cn: String, production: Bool, test: Bool) throws {
        let certificate = try TestPKI.issue(cn, key: pki.unionPayKey, serial: 11, by: (pki.middle, pki.middleKey))
        let signed = try pki.signedByUnionPay(answer, certificate: certificate)
        #expect((code { try pki.verifier().verify(signed) } == nil) == production, "\(cn)")
        #expect((code { try pki.verifier(owner: .unionPayOrTestEnvironment).verify(signed) } == nil) == test, "\(cn)")
    }

    @Test func unsignedAndOddMessagesAreRefused() throws {
        let signed = try pki.signedByUnionPay(answer)
        let verifier = try pki.verifier()
        #expect(code { try verifier.verify(signed.filter { $0.key != "signature" }) } == .signatureMismatch)
        #expect(code { try verifier.verify(signed.filter { $0.key != "signPubKeyCert" }) } == .signatureMismatch)
        #expect(code { try verifier.verify(signed.merging(["signPubKeyCert": "not a certificate"]) { $1 }) } == .signatureMismatch)
        #expect(code { try verifier.verify(signed.merging(["signMethod": "11"]) { $1 }) } == .malformedMessage)
        #expect(code { try verifier.verify(signed.merging(["version": "5.2.0"]) { $1 }) } == .malformedMessage)
        #expect(code { try verifier.verify(signed.merging(["signature": "!!"]) { $1 }) } == .signatureMismatch)
        // Relabelled 5.0.0 (a downgrade): no configured certificate has its certId.
        #expect(code { try verifier.verify(signed.merging(["version": "5.0.0"]) { $1 }) } == .unknownKey)
    }

    @Test func version500IsFoundByCertID() throws {
        let signed = try pki.signedByUnionPay(answer, version: .v5_0_0)
        #expect(signed["signPubKeyCert"] == nil)
        #expect(code { try pki.verifier().verify(signed) } == .unknownKey)
        let verifier = try pki.verifier(legacy: [pki.unionPay])
        #expect(try verifier.verify(signed) == signed)
        #expect(code { try verifier.verify(signed.merging(["respCode": "05"]) { $1 }) } == .signatureMismatch)
        // The certId names the certificate: another serial is another (unknown) certificate.
        #expect(code { try verifier.verify(signed.merging(["certId": "1"]) { $1 }) } == .unknownKey)
        // A 5.0.0 signature is SHA1withRSA over the SHA-1 hex: the same key's 5.1.0 signature does not pass as one.
        var mixed = signed
        mixed["signature"] = try pki.signedByUnionPay(answer)["signature"]
        #expect(code { try verifier.verify(mixed) } == .signatureMismatch)
    }
}

import Foundation
import Testing

@testable import CashierCrypto

@Suite struct X509Tests {
    struct NotifyFile: Decodable {
        struct Inner: Decodable { let platform_cert_pem: String }
        let wechatpay_go_notify: Inner
    }

    static func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

    @Test func appleRootCAG3() throws {
        let root = try X509Certificate(pemRepresentation: Fixture.text("applepay/AppleRootCA-G3.pem"))
        #expect(root.subjectRFC2253 == "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3")
        #expect(root.issuerRFC2253 == root.subjectRFC2253)
        #expect(root.subjectComponents.map(\.shortName) == ["CN", "OU", "O", "C"])
        #expect(root.subjectComponents.first?.value == "Apple Root CA - G3")
        #expect(root.subjectComponents.first?.oid == "2.5.4.3")
        #expect(root.serialNumberHex == "2DC5FC88D2C54B95")
        #expect(root.serialNumberDecimal == "3298319966700653461")
        #expect(root.notValidBefore == Self.date("2014-04-30T18:19:06Z"))
        #expect(root.notValidAfter == Self.date("2039-04-30T18:19:06Z"))
        #expect(
            Hex.encode(root.sha256Fingerprint, uppercase: true)
                == "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
        #expect(
            Hex.encode(DigestAlgorithm.sha256.hash(root.subjectPublicKeyInfoDER))
                == "9b219d0fbff36a5fb32090571906bceea68617c833a3f61b81e962a8e64db8af")
        #expect(root.signatureAlgorithmOID == "1.2.840.10045.4.3.3")  // ecdsa-with-SHA384
        #expect(!root.isSignedWithRSA)
        #expect(root.extension(oid: "2.5.29.19")?.isCritical == true)  // basicConstraints
        #expect(root.extension(oid: "1.2.840.113635.100.6.2.14") == nil)
        #expect(root.isValid(at: Self.date("2020-01-01T00:00:00Z")))
        #expect(!root.isValid(at: Self.date("2014-01-01T00:00:00Z")))
    }

    @Test func appleApplicationIntegrationCAG3() throws {
        let intermediate = try X509Certificate(pemRepresentation: Fixture.text("applepay/AppleAAICAG3.pem"))
        #expect(
            intermediate.subjectRFC2253
                == "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Application Integration CA - G3")
        #expect(intermediate.issuerRFC2253 == "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3")
        #expect(intermediate.serialNumberHex == "496D2FBF3A98DA97")
        #expect(intermediate.serialNumberDecimal == "5290937635598555799")
        #expect(intermediate.notValidBefore == Self.date("2014-05-06T23:46:30Z"))
        #expect(intermediate.notValidAfter == Self.date("2029-05-06T23:46:30Z"))
        #expect(
            Hex.encode(intermediate.sha256Fingerprint, uppercase: true)
                == "A64B099DBD73EBB036B4204E1675E8AA821637D09B84980899104AD59D664A3B")
        #expect(
            Hex.encode(DigestAlgorithm.sha256.hash(intermediate.subjectPublicKeyInfoDER))
                == "1ef14039492808e74d57500311287de28e114e2204443202652fbdab31cdcd69")
        let marker = intermediate.extension(oid: "1.2.840.113635.100.6.2.14")
        #expect(marker != nil)
        #expect(marker?.value == [0x05, 0x00])  // ASN.1 NULL
        #expect(intermediate.extensions.contains { $0.oid == "1.2.840.113635.100.6.2.14" })
        // Its key is P-256, readable as a public key.
        #expect(try P256PublicKey(certificate: intermediate).derRepresentation == intermediate.subjectPublicKeyInfoDER)
    }

    @Test func chainVerification() throws {
        let root = try X509Certificate(pemRepresentation: Fixture.text("applepay/AppleRootCA-G3.pem"))
        let intermediate = try X509Certificate(pemRepresentation: Fixture.text("applepay/AppleAAICAG3.pem"))
        let chain = try CertificateChainVerifier.verify(
            intermediate, intermediates: [], trustAnchors: [root], at: Self.date("2020-01-01T00:00:00Z"))
        #expect(chain == [intermediate, root])
        let expired = #expect(throws: CryptoError.self) {
            try CertificateChainVerifier.verify(
                intermediate, intermediates: [], trustAnchors: [root], at: Self.date("2030-01-01T00:00:00Z"))
        }
        #expect(expired?.code == .chainVerificationFailure)
        #expect(expired?.reason.contains("expired") == true)
        #expect(throws: CryptoError.self) {
            try CertificateChainVerifier.verify(
                intermediate, intermediates: [], trustAnchors: [intermediate], at: Self.date("2020-01-01T00:00:00Z"))
        }
    }

    @Test func pemBundlesAndBadInput() throws {
        let bundle = try Fixture.text("applepay/AppleRootCA-G3.pem") + "\n# comment\n" + Fixture.text("applepay/AppleAAICAG3.pem")
        let certificates = try X509Certificate.certificates(pemRepresentation: bundle)
        #expect(certificates.count == 2)
        #expect(try X509Certificate(pemRepresentation: certificates[1].pemRepresentation) == certificates[1])
        let error = #expect(throws: CryptoError.self) { try X509Certificate(derRepresentation: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(error?.code == .invalidCertificate)
        #expect(throws: CryptoError.self) {
            try X509Certificate(pemRepresentation: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
    }

    @Test func rsaCertificateKeyAndSignatureAlgorithm() throws {
        let pem = try Fixture.decode(NotifyFile.self, "v3_notify.json").wechatpay_go_notify.platform_cert_pem
        let certificate = try X509Certificate(pemRepresentation: pem)
        #expect(certificate.serialNumberHex == "D7CE59D1F522D701")
        #expect(certificate.isSignedWithRSA)
        #expect(certificate.signatureAlgorithmOID == "1.2.840.113549.1.1.11")
        #expect(try RSAPublicKey(certificate: certificate).keySizeInBits == 2048)
        #expect(try RSAPublicKey(pemRepresentation: pem).derRepresentation == certificate.subjectPublicKeyInfoDER)
        #expect(throws: CryptoError.self) { try P256PublicKey(certificate: certificate) }
    }
}

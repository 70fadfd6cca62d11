import Foundation
import Testing

@testable import CashierCrypto

/// CMS detached signatures, on the real gala-2014 Apple Pay token (signed 2014-10-27 19:51:43 UTC).
@Suite struct CMSTests {
    struct Token: Decodable {
        struct Header: Decodable {
            let ephemeralPublicKey: String?
            let wrappedKey: String?
            let transactionId: String
            let applicationData: String?
        }
        let data: String
        let signature: String
        let header: Header

        /// ephemeralPublicKey (or wrappedKey) ‖ data ‖ transactionId ‖ applicationData.
        func signedContent() throws -> [UInt8] {
            var content = Array(try Base64.decode(header.ephemeralPublicKey ?? header.wrappedKey ?? ""))
            content += try Base64.decode(data)
            content += try Hex.decode(header.transactionId)
            if let applicationData = header.applicationData { content += try Hex.decode(applicationData) }
            return content
        }
    }

    struct Wrapped: Decodable { let paymentData: Token }

    static let signingTime = Date(timeIntervalSince1970: 1_414_439_503)  // 2014-10-27T19:51:43Z

    static func root() throws -> X509Certificate {
        try X509Certificate(pemRepresentation: Fixture.text("applepay/AppleRootCA-G3.pem"))
    }

    static func gala() throws -> Token { try Fixture.decode(Token.self, "applepay/gala-2014-token.json") }

    @Test func galaVerifiesAtItsSigningTime() throws {
        let token = try Self.gala()
        let cms = try CMSSignedData(derRepresentation: Base64.decode(token.signature))
        let result = try cms.verifyDetached(content: token.signedContent(), trustAnchors: [Self.root()], at: Self.signingTime)
        #expect(result.signingTime == Self.signingTime)
        #expect(result.signer.extension(oid: "1.2.840.113635.100.6.29") != nil)
        #expect(result.signer.subjectRFC2253.contains("ecc-smp-broker-sign_UC4-PROD"))
        #expect(result.chain.count == 3)
        #expect(result.chain.last == (try Self.root()))
        #expect(result.chain[1].extension(oid: "1.2.840.113635.100.6.2.14") != nil)
        #expect(result.embeddedCertificates.count == 2)
        #expect(result.embeddedCertificates.contains(result.signer))
    }

    @Test func galaIsRejectedToday() throws {
        let token = try Self.gala()
        let cms = try CMSSignedData(derRepresentation: Base64.decode(token.signature))
        let error = #expect(throws: CryptoError.self) {
            try cms.verifyDetached(content: token.signedContent(), trustAnchors: [Self.root()], at: Date())
        }
        #expect(error?.code == .chainVerificationFailure)
        #expect(error?.reason.contains("expired") == true)
    }

    @Test(arguments: [0, 40, 91, 200])
    func anyChangedContentByteIsRejected(offset: Int) throws {
        let token = try Self.gala()
        let cms = try CMSSignedData(derRepresentation: Base64.decode(token.signature))
        var content = try token.signedContent()
        content[offset] ^= 0x01
        let error = #expect(throws: CryptoError.self) {
            try cms.verifyDetached(content: content, trustAnchors: [Self.root()], at: Self.signingTime)
        }
        #expect(error?.code == .signatureVerificationFailure)
    }

    @Test func anotherRootIsRejected() throws {
        let token = try Self.gala()
        let cms = try CMSSignedData(derRepresentation: Base64.decode(token.signature))
        let intermediate = try X509Certificate(pemRepresentation: Fixture.text("applepay/AppleAAICAG3.pem"))
        let other = try X509Certificate(
            pemRepresentation: Fixture.decode(X509Tests.NotifyFile.self, "v3_notify.json").wechatpay_go_notify.platform_cert_pem)
        let error = #expect(throws: CryptoError.self) {
            try cms.verifyDetached(content: token.signedContent(), trustAnchors: [other], at: Self.signingTime)
        }
        #expect(error?.code == .chainVerificationFailure)
        // Trusting the intermediate directly is a different anchor and is also refused (partial chains are off).
        #expect(throws: CryptoError.self) {
            try cms.verifyDetached(content: token.signedContent(), trustAnchors: [intermediate], at: Self.signingTime)
        }
    }

    /// The processout-2017 tokens (EC_v1 and RSA_v1) verify at their signing times.
    @Test(arguments: [("ec", 1_485_974_706), ("rsa", 1_485_986_213)])
    func processoutTokens(kind: String, signedAt: Int) throws {
        let token = try Fixture.decode(Wrapped.self, "applepay/processout-2017-token-\(kind).json").paymentData
        let cms = try CMSSignedData(derRepresentation: Base64.decode(token.signature))
        let result = try cms.verifyDetached(
            content: token.signedContent(), trustAnchors: [Self.root()], at: Date(timeIntervalSince1970: TimeInterval(signedAt)))
        let signingTime = try #require(result.signingTime)
        #expect(abs(signingTime.timeIntervalSince1970 - TimeInterval(signedAt)) < 1)
        var content = try token.signedContent()
        content[content.count - 1] ^= 0x80
        #expect(throws: CryptoError.self) {
            try cms.verifyDetached(content: content, trustAnchors: [Self.root()], at: Date(timeIntervalSince1970: TimeInterval(signedAt)))
        }
    }

    @Test func malformedStructures() throws {
        let error = #expect(throws: CryptoError.self) { try CMSSignedData(derRepresentation: [0x30, 0x80, 0x00]) }
        #expect(error?.code == .invalidEncoding)
        #expect(throws: CryptoError.self) { try CMSSignedData(derRepresentation: [UInt8]()) }
    }
}

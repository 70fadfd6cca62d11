import CashierCrypto
import Foundation
import Testing

/// Certificates issued by CertificateBuilder and CMS signatures made by signDetached, checked by
/// the same verifiers that check Apple's real tokens.
@Suite struct CertificateBuilderTests {
    @Test func issuedChainSignsCMSThatVerifies() throws {
        let rootKey = try P256PrivateKey()
        let root = try CertificateBuilder(
            subject: [("C", "US"), ("O", "Test"), ("CN", "Test Root")], serialNumber: 1, isCertificateAuthority: true
        )
        .issue(publicKey: .p256(rootKey.publicKey), signedBy: .p256(rootKey))
        let middleKey = try P256PrivateKey()
        let middle = try CertificateBuilder(
            subject: [("CN", "Test Intermediate")], serialNumber: 2, isCertificateAuthority: true,
            extensions: [X509Extension(oid: "1.2.840.113635.100.6.2.14", isCritical: false, value: [0x05, 0x00])]
        ).issue(publicKey: .p256(middleKey.publicKey), issuer: root, signedBy: .p256(rootKey))
        let leafKey = try P256PrivateKey()
        let leaf = try CertificateBuilder(
            subject: [("CN", "Test Leaf")], serialNumber: 3,
            extensions: [X509Extension(oid: "1.2.840.113635.100.6.29", isCritical: false, value: [0x05, 0x00])]
        ).issue(publicKey: .p256(leafKey.publicKey), issuer: middle, signedBy: .p256(middleKey))

        #expect(root.subjectRFC2253 == "CN=Test Root,O=Test,C=US" && root.issuerRFC2253 == root.subjectRFC2253)
        #expect(leaf.issuerRFC2253 == "CN=Test Intermediate" && leaf.serialNumberDecimal == "3")
        #expect(leaf.extension(oid: "1.2.840.113635.100.6.29")?.value == [0x05, 0x00])
        #expect(try CertificateChainVerifier.verify(leaf, intermediates: [middle], trustAnchors: [root], at: Date()).count == 3)

        let content = Array("ephemeral ‖ data ‖ transaction".utf8)
        let signedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let signature = try CMSSignedData.signDetached(
            content: content, signer: leaf, key: .p256(leafKey), certificates: [middle], signingTime: signedAt)
        let cms = try CMSSignedData(derRepresentation: signature)
        let result = try cms.verifyDetached(content: content, trustAnchors: [root], at: Date())
        #expect(result.signer == leaf && result.signingTime == signedAt && result.chain.count == 3)
        #expect(throws: CryptoError.self) { try cms.verifyDetached(content: content + [0], trustAnchors: [root], at: Date()) }
        // Another root: the chain does not lead to it.
        let otherKey = try P256PrivateKey()
        let other = try CertificateBuilder(subject: [("CN", "Other Root")], serialNumber: 1, isCertificateAuthority: true)
            .issue(publicKey: .p256(otherKey.publicKey), signedBy: .p256(otherKey))
        #expect(throws: CryptoError.self) { try cms.verifyDetached(content: content, trustAnchors: [other], at: Date()) }
        // A key that is not the signer certificate's is refused.
        #expect(throws: CryptoError.self) {
            try CMSSignedData.signDetached(content: content, signer: leaf, key: .p256(rootKey), certificates: [], signingTime: signedAt)
        }
        // RSA subjects too (Apple Pay RSA_v1 processing certificates).
        let rsa = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let rsaLeaf = try CertificateBuilder(subject: [("CN", "RSA merchant")], serialNumber: 9)
            .issue(publicKey: .rsa(rsa.publicKey), issuer: root, signedBy: .p256(rootKey))
        #expect(try RSAPublicKey(certificate: rsaLeaf).derRepresentation == rsa.publicKey.derRepresentation)
    }

    /// Every certificate names its key (subjectKeyIdentifier, SHA-1 of the key bits) and its
    /// issuer's (authorityKeyIdentifier), so two roots with one name still build the right chain.
    @Test func keyIdentifiersChooseAmongIssuersWithOneName() throws {
        func root() throws -> (X509Certificate, P256PrivateKey) {
            let key = try P256PrivateKey()
            let certificate = try CertificateBuilder(subject: [("CN", "Same Name Root")], serialNumber: 1, isCertificateAuthority: true)
                .issue(publicKey: .p256(key.publicKey), signedBy: .p256(key))
            return (certificate, key)
        }
        let (first, _) = try root()
        let (second, secondKey) = try root()
        let leafKey = try P256PrivateKey()
        let leaf = try CertificateBuilder(subject: [("CN", "Leaf")], serialNumber: 2)
            .issue(publicKey: .p256(leafKey.publicKey), issuer: second, signedBy: .p256(secondKey))

        let subjectKeyID = try #require(second.extension(oid: "2.5.29.14")?.value)
        #expect(subjectKeyID == [0x04, 0x14] + DigestAlgorithm.insecureSHA1.hash(keyBits(second)))
        #expect(second.extension(oid: "2.5.29.35")?.value == [0x30, 0x16, 0x80, 0x14] + subjectKeyID.dropFirst(2))
        #expect(leaf.extension(oid: "2.5.29.35")?.value == [0x30, 0x16, 0x80, 0x14] + subjectKeyID.dropFirst(2))
        #expect(try CertificateChainVerifier.verify(leaf, intermediates: [], trustAnchors: [first, second], at: Date()).count == 2)
        #expect(throws: CryptoError.self) {
            try CertificateChainVerifier.verify(leaf, intermediates: [], trustAnchors: [first], at: Date())
        }
    }

    /// The subjectPublicKey bits of a P-256 certificate: the last 65 bytes of its SPKI.
    private func keyBits(_ certificate: X509Certificate) -> [UInt8] {
        Array(certificate.subjectPublicKeyInfoDER.suffix(65))
    }
}

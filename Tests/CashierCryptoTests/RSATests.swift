import ChildProcesses
import Foundation
import Testing

@testable import CashierCrypto

@Suite struct RSATests {
    struct SignVector: Decodable {
        let private_key_pkcs8_pem: String?
        let private_key_pkcs1_pem: String?
        let message: String
        let signature: String
        var pem: String { private_key_pkcs8_pem ?? private_key_pkcs1_pem ?? "" }
    }

    struct SignFile: Decodable {
        let wechatpay_go_sha256withrsa: SignVector
        let docs_test_key_jsapi: SignVector
    }

    struct AlipayFile: Decodable {
        struct Notify: Decodable {
            let alipay_public_key_pem: String
            let params: [String: String]
            let sign_content: String
        }
        let notify_trade_status_sync: Notify
    }

    static func vectors() throws -> [SignVector] {
        let file = try Fixture.decode(SignFile.self, "v3_sign.json")
        return [file.wechatpay_go_sha256withrsa, file.docs_test_key_jsapi]
    }

    /// PKCS#1 v1.5 signatures are deterministic: the same key and message give the published bytes.
    @Test func fixedSignaturesFromPKCS8AndPKCS1Keys() throws {
        for vector in try Self.vectors() {
            let key = try RSAPrivateKey(pemRepresentation: vector.pem)
            #expect(key.keySizeInBits == 2048)
            let signature = try key.signature(for: vector.message, scheme: .insecurePKCS1v1_5SHA256)
            #expect(Base64.encode(signature) == vector.signature)
            #expect(key.publicKey.isValidSignature(signature, for: Array(vector.message.utf8), scheme: .insecurePKCS1v1_5SHA256))
        }
    }

    @Test func tamperedMessageOrSignatureOrWrongKeyFails() throws {
        let vector = try Self.vectors()[0]
        let key = try RSAPrivateKey(pemRepresentation: vector.pem)
        let signature = try Array(Base64.decode(vector.signature))
        let publicKey = key.publicKey
        #expect(!publicKey.isValidSignature(signature, for: Array((vector.message + "x").utf8), scheme: .insecurePKCS1v1_5SHA256))
        var flipped = signature
        flipped[100] ^= 0x04
        #expect(!publicKey.isValidSignature(flipped, for: Array(vector.message.utf8), scheme: .insecurePKCS1v1_5SHA256))
        #expect(!publicKey.isValidSignature(signature, for: Array(vector.message.utf8), scheme: .insecurePKCS1v1_5SHA1))
        #expect(!publicKey.isValidSignature([UInt8](), for: Array(vector.message.utf8), scheme: .insecurePKCS1v1_5SHA256))
        let other = try RSAPrivateKey(pemRepresentation: Self.vectors()[1].pem).publicKey
        #expect(!other.isValidSignature(signature, for: Array(vector.message.utf8), scheme: .insecurePKCS1v1_5SHA256))
    }

    /// A real Alipay-signed notification, verified with the key in SPKI PEM and in the bare
    /// base64 form the Alipay console shows.
    @Test func alipaySignedNotification() throws {
        let notify = try Fixture.decode(AlipayFile.self, "alipay_real_signed.json").notify_trade_status_sync
        let signature = try Base64.decode(notify.params["sign"] ?? "")
        let pem = try RSAPublicKey(pemRepresentation: notify.alipay_public_key_pem)
        let bare = notify.alipay_public_key_pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let fromBare = try RSAPublicKey(pemRepresentation: bare)
        #expect(pem.derRepresentation == fromBare.derRepresentation)
        #expect(fromBare.isValidSignature(signature, for: Array(notify.sign_content.utf8), scheme: .insecurePKCS1v1_5SHA256))
        let tampered = notify.sign_content.replacingOccurrences(of: "total_amount=0.10", with: "total_amount=0.11")
        #expect(tampered != notify.sign_content)
        #expect(!fromBare.isValidSignature(signature, for: Array(tampered.utf8), scheme: .insecurePKCS1v1_5SHA256))
    }

    @Test func sha1RoundTripAndSchemesDoNotMix() throws {
        let key = try RSAPrivateKey(pemRepresentation: Self.vectors()[0].pem)
        let signature = try key.signature(for: "legacy", scheme: .insecurePKCS1v1_5SHA1)
        #expect(key.publicKey.isValidSignature(signature, for: Array("legacy".utf8), scheme: .insecurePKCS1v1_5SHA1))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("legacy".utf8), scheme: .insecurePKCS1v1_5SHA256))
    }

    @Test func keyFormsRoundTrip() throws {
        let key = try RSAPrivateKey(pemRepresentation: Self.vectors()[1].pem)
        let pkcs8 = try RSAPrivateKey(pemRepresentation: key.pemRepresentation)
        let pkcs1 = try RSAPrivateKey(pemRepresentation: key.pkcs1PEMRepresentation)
        let der = try RSAPrivateKey(derRepresentation: key.derRepresentation)
        let bare = try RSAPrivateKey(pemRepresentation: Base64.encode(key.pkcs1DERRepresentation))
        for copy in [pkcs8, pkcs1, der, bare] {
            #expect(copy.publicKey.derRepresentation == key.publicKey.derRepresentation)
        }
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(key.pkcs1PEMRepresentation.hasPrefix("-----BEGIN RSA PRIVATE KEY-----\n"))
        let publicPEM = try RSAPublicKey(pemRepresentation: key.publicKey.pemRepresentation)
        #expect(publicPEM.derRepresentation == key.publicKey.derRepresentation)
        // PKCS#1 RSAPublicKey form: strip the SPKI wrapper (24-byte header for 2048-bit keys).
        let pkcs1Public = PEMDocument(label: "RSA PUBLIC KEY", derBytes: Array(key.publicKey.derRepresentation.dropFirst(24)))
        #expect(try RSAPublicKey(pemRepresentation: pkcs1Public.pemRepresentation).derRepresentation == key.publicKey.derRepresentation)
    }

    /// `openssl pkcs12 -nodes` writes "Bag Attributes" lines before the PEM block.
    @Test func bagAttributesPreambleIsSkipped() throws {
        let pem = try Self.vectors()[0].pem
        let withPreamble =
            "Bag Attributes\n    localKeyID: 01 00 00 00 \n    friendlyName: apiclient\nKey Attributes: <No Attributes>\n" + pem
        let key = try RSAPrivateKey(pemRepresentation: withPreamble)
        #expect(try key.signature(for: "source", scheme: .insecurePKCS1v1_5SHA256) == Array(Base64.decode(Self.vectors()[0].signature)))
    }

    @Test func oaepRoundTripAndWrongKey() throws {
        let key = try RSAPrivateKey(pemRepresentation: Self.vectors()[0].pem)
        let secret = SecureRandom.bytes(count: 32)
        let wrapped = try key.publicKey.encrypt(secret, padding: .oaepSHA256)
        #expect(wrapped.count == 256)
        #expect(try key.decrypt(wrapped, padding: .oaepSHA256) == secret)
        // OAEP is randomised: two encryptions differ.
        #expect(try key.publicKey.encrypt(secret, padding: .oaepSHA256) != wrapped)
        let other = try RSAPrivateKey(pemRepresentation: Self.vectors()[1].pem)
        let error = #expect(throws: CryptoError.self) { try other.decrypt(wrapped, padding: .oaepSHA256) }
        #expect(error?.code == .authenticationFailure)
    }

    /// OAEP with SHA-256/MGF1-SHA-256, cross-checked against the `openssl pkeyutl` command line.
    @Test func oaepInteroperatesWithTheOpenSSLCommand() throws {
        let key = try RSAPrivateKey(pemRepresentation: Self.vectors()[0].pem)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-oaep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try key.pemRepresentation.write(to: folder.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        try Data(key.publicKey.encrypt(Array("wrapped key".utf8), padding: .oaepSHA256)).write(to: folder.appendingPathComponent("in.bin"))
        let process = try ChildProcess(
            "/usr/bin/openssl",
            [
                "pkeyutl", "-decrypt", "-inkey", "key.pem", "-in", "in.bin", "-out", "out.bin",
                "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256",
            ],
            directory: folder)
        #expect(process.terminationStatus == 0)
        #expect(try Data(contentsOf: folder.appendingPathComponent("out.bin")) == Data("wrapped key".utf8))
    }

    @Test func badKeysGiveClearErrors() throws {
        let garbage = #expect(throws: CryptoError.self) { try RSAPrivateKey(pemRepresentation: "not a key") }
        #expect(garbage?.code == .invalidEncoding || garbage?.code == .invalidKey)
        let ec = try P256PrivateKey()
        let wrongType = #expect(throws: CryptoError.self) { try RSAPrivateKey(pemRepresentation: ec.pemRepresentation) }
        #expect(wrongType?.code == .invalidKey)
        #expect(wrongType?.description.contains("not an RSA key") == true)
        let truncated = #expect(throws: CryptoError.self) {
            try RSAPrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\nMIIEvg\n")
        }
        #expect(truncated?.code == .invalidEncoding)
        // Errors never echo key material.
        let pem = try Self.vectors()[0].pem
        let body = pem.split(separator: "\n")[1]
        let broken = #expect(throws: CryptoError.self) {
            try RSAPrivateKey(pemRepresentation: pem.replacingOccurrences(of: String(body), with: String(body.dropFirst(8))))
        }
        #expect(broken.map { !$0.debugDescription.contains(body.dropFirst(8).prefix(20)) } == true)
    }

    @Test func generatedKeysWork() throws {
        let key = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        #expect(key.keySizeInBits == 2048)
        let signature = try key.signature(for: "hello", scheme: .insecurePKCS1v1_5SHA256)
        #expect(key.publicKey.isValidSignature(signature, for: Array("hello".utf8), scheme: .insecurePKCS1v1_5SHA256))
        #expect(throws: CryptoError.self) { try RSAPrivateKey(generatingKeySizeInBits: 512) }
    }
}

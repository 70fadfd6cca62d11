import Cashier
import CashierCrypto
import Foundation
import TestSupport
import Testing
import UnionPay

/// The signing rules, against answers computed elsewhere: Python's hashlib and `cryptography`
/// (the vectors), `openssl dgst` and `openssl pkeyutl` run here, and rule-by-rule checks that
/// fail when a rule is broken.
@Suite struct SignerTests {
    struct Vectors: Decodable {
        struct Vector: Decodable, Sendable, CustomTestStringConvertible {
            let name: String
            let key: Int
            let fields: [String: String]
            let content: String
            let digest_hex: String
            let signature: String
            var testDescription: String { name }
        }
        let vectors: [Vector]
    }

    static let vectors: [Vectors.Vector] = {
        let url = Bundle.module.url(forResource: "sign_vectors", withExtension: "json", subdirectory: "Vectors")!
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url)).vectors
    }()

    @Test(arguments: vectors) func knownAnswers(vector: Vectors.Vector) throws {
        let version = try #require(UnionPay.Version(rawValue: vector.fields["version"] ?? ""))
        #expect(UnionPay.Signer.content(vector.fields) == vector.content)
        #expect(UnionPay.Signer.digestHex(of: vector.content, version: version) == vector.digest_hex)
        let key = TestKeys.rsa(vector.key)
        #expect(try UnionPay.Signer.signature(for: vector.fields, privateKey: key, version: version) == vector.signature)
        #expect(UnionPay.Signer.isValidSignature(vector.signature, for: vector.fields, publicKey: key.publicKey, version: version))
        var tampered = vector.fields
        tampered["txnAmt"] = "1201"
        #expect(!UnionPay.Signer.isValidSignature(vector.signature, for: tampered, publicKey: key.publicKey, version: version))
    }

    /// `openssl dgst -sha256` over the content gives the hex that is signed, and
    /// `openssl pkeyutl -sign -pkeyopt digest:sha256` over that hex's digest gives the signature.
    @Test(arguments: UnionPay.Version.allCases) func opensslAgrees(version: UnionPay.Version) async throws {
        let folder = try Scratch.newFolder("unionpay-openssl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = TestKeys.rsa(0)
        try key.pemRepresentation.write(to: folder.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        let fields = Self.vectors[0].fields.merging(["version": version.rawValue]) { $1 }
        let content = UnionPay.Signer.content(fields)
        let algorithm = version == .v5_1_0 ? "sha256" : "sha1"
        let dgst = try await runSubprocess("/usr/bin/env", ["openssl", "dgst", "-\(algorithm)", "-r"], stdin: Data(content.utf8))
        try #require(dgst.status == 0, "\(dgst.stderr)")
        let hex = String(dgst.stdout.prefix { $0 != " " })
        #expect(hex == UnionPay.Signer.digestHex(of: content, version: version))
        // Ours verifies with `openssl dgst -verify` over the hex (hash, then PKCS#1 v1.5).
        let ours = try UnionPay.Signer.signature(for: fields, privateKey: key, version: version)
        try Data(try Base64.decode(ours)).write(to: folder.appendingPathComponent("sig.bin"))
        try key.publicKey.pemRepresentation.write(to: folder.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        try Data(hex.utf8).write(to: folder.appendingPathComponent("hex.txt"))
        let verified = try await runSubprocess(
            "/usr/bin/env",
            [
                "openssl", "dgst", "-\(algorithm)", "-verify", folder.appendingPathComponent("pub.pem").path, "-signature",
                folder.appendingPathComponent("sig.bin").path, folder.appendingPathComponent("hex.txt").path,
            ])
        #expect(verified.stdout.contains("Verified OK"), "\(verified.stdout) \(verified.stderr)")
        // pkeyutl: PKCS#1 v1.5 of the hex's digest, byte for byte ours (the scheme is deterministic).
        try Data(version.digest.hash(Array(hex.utf8))).write(to: folder.appendingPathComponent("digest.bin"))
        let pkeyutl = try await runSubprocess(
            "/usr/bin/env",
            [
                "openssl", "pkeyutl", "-sign", "-inkey", folder.appendingPathComponent("key.pem").path, "-in",
                folder.appendingPathComponent("digest.bin").path, "-out", folder.appendingPathComponent("pkeyutl.bin").path,
                "-pkeyopt", "digest:\(algorithm)", "-pkeyopt", "rsa_padding_mode:pkcs1",
            ])
        try #require(pkeyutl.status == 0, "\(pkeyutl.stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("pkeyutl.bin")) == Data(try Base64.decode(ours)))
    }

    /// Each rule, broken on purpose, gives another signature that does not verify.
    @Test func eachRuleMatters() throws {
        let key = TestKeys.rsa(0)
        let fields = Self.vectors[0].fields
        let signature = try UnionPay.Signer.signature(for: fields, privateKey: key, version: .v5_1_0)
        func verifies(_ content: String, hexFirst: Bool = true) -> Bool {
            let message = hexFirst ? Array(UnionPay.Signer.digestHex(of: content, version: .v5_1_0).utf8) : Array(content.utf8)
            return key.publicKey.isValidSignature(try! Base64.decode(signature), for: message, scheme: .insecurePKCS1v1_5SHA256)
        }
        let content = UnionPay.Signer.content(fields)
        #expect(verifies(content))
        // Signing the string itself (senweaver-pay's mistake) is another signature.
        #expect(!verifies(content, hexFirst: false))
        // Upper-case hex is another message.
        let upper = Array(UnionPay.Signer.digestHex(of: content, version: .v5_1_0).uppercased().utf8)
        #expect(!key.publicKey.isValidSignature(try Base64.decode(signature), for: upper, scheme: .insecurePKCS1v1_5SHA256))
        // Keeping the empty frontUrl, or URL-encoding values, or not sorting: other strings.
        #expect(!verifies(UnionPay.Signer.content(fields, keepingEmpty: true)))
        #expect(!verifies(fields.filter { !$0.value.isEmpty }.map { "\($0.key)=\($0.value)" }.sorted().reversed().joined(separator: "&")))
        #expect(!verifies(UnionPay.FormBody.encode(fields.filter { !$0.value.isEmpty && $0.key != "signature" })))
        // Signing drops blanks and sets certId, signMethod and version.
        let signed = try UnionPay.Signer(key: TestPKI().merchantSigningKey).sign(["merId": "1", "frontUrl": "", "signature": "x"])
        #expect(
            signed["frontUrl"] == nil && signed["certId"] == "68759663125" && signed["signMethod"] == "01" && signed["version"] == "5.1.0")
        #expect(UnionPay.Signer.isValidSignature(signed["signature"]!, for: signed, publicKey: key.publicKey, version: .v5_1_0))
    }

    /// certId is the serial in decimal: 0x1002653215 is 68759663125, as in UnionPay's public test file.
    @Test func certIDIsTheDecimalSerial() throws {
        let pki = try TestPKI()
        #expect(pki.merchantSigningKey.certID == "68759663125")
        #expect(pki.merchant.serialNumberHex == "1002653215")
        // A certificate that does not hold the key is refused.
        #expect(throws: PaymentError.self) { try UnionPay.SigningKey(privateKey: TestKeys.rsa(5), certificate: pki.merchant) }
    }
}

import Cashier
import CashierCrypto
import Foundation
import TestSupport
import Testing
import UnionPay

/// UnionPay merchants get a `.pfx` whose certificate bag is encrypted with
/// `pbeWithSHA1And40BitRC2-CBC`. One is made here by `openssl pkcs12 -export -legacy` from a
/// TEST KEY; OpenSSL 3 without its legacy provider refuses it, and Cashier reads it.
@Suite struct PKCS12Tests {
    @Test func aLegacyRC2FileIsRead() async throws {
        let pki = try TestPKI()
        let folder = try Scratch.newFolder("unionpay-pfx")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem")
        let certificate = folder.appendingPathComponent("cert.pem")
        let pfx = folder.appendingPathComponent("acp_sign.pfx")
        try pki.merchantKey.pemRepresentation.write(to: key, atomically: true, encoding: .utf8)
        try (pki.merchant.pemRepresentation + pki.middle.pemRepresentation).write(to: certificate, atomically: true, encoding: .utf8)
        let made = try await runSubprocess(
            "/usr/bin/env",
            [
                "openssl", "pkcs12", "-export", "-legacy", "-inkey", key.path, "-in", certificate.path, "-out", pfx.path, "-passout",
                "pass:000000", "-certpbe", "PBE-SHA1-RC2-40", "-keypbe", "PBE-SHA1-3DES",
            ])
        try #require(made.status == 0, "\(made.stderr)")
        // The file really is RC2: OpenSSL 3's default provider cannot open it.
        let plain = try await runSubprocess(
            "/usr/bin/env", ["openssl", "pkcs12", "-in", pfx.path, "-passin", "pass:000000", "-info", "-nokeys"])
        #expect(plain.status != 0 && (plain.stderr.contains("unsupported") || plain.stderr.contains("RC2")), "\(plain.stderr)")
        let info = try await runSubprocess(
            "/usr/bin/env", ["openssl", "pkcs12", "-legacy", "-in", pfx.path, "-passin", "pass:000000", "-info", "-noout"])
        #expect(info.stderr.contains("pbeWithSHA1And40BitRC2-CBC"), "\(info.stderr)")

        let data = try Data(contentsOf: pfx)
        let bundle = try PKCS12Bundle(derRepresentation: data, password: "000000")
        #expect(bundle.certificate == pki.merchant && bundle.additionalCertificates == [pki.middle])
        guard case .rsa(let loaded) = bundle.privateKey else {
            Issue.record("not an RSA key")
            return
        }
        #expect(loaded.derRepresentation == pki.merchantKey.derRepresentation)
        let signingKey = try UnionPay.SigningKey(pkcs12: data, password: "000000")
        #expect(signingKey.certID == "68759663125")
        // The key signs in the default context afterwards (the legacy context was only for reading).
        let signed = try UnionPay.Signer(key: signingKey).sign(["merId": TestPKI.merchantID])
        #expect(UnionPay.Signer.isValidSignature(signed["signature"]!, for: signed, publicKey: pki.merchantKey.publicKey, version: .v5_1_0))

        #expect(throws: CryptoError.self) { try PKCS12Bundle(derRepresentation: data, password: "111111") }
        #expect(throws: PaymentError.self) { try UnionPay.SigningKey(pkcs12: data, password: "") }
        #expect(throws: CryptoError.self) { try PKCS12Bundle(derRepresentation: data.prefix(100), password: "000000") }
        #expect(throws: CryptoError.self) { try PKCS12Bundle(derRepresentation: Data("not a pfx".utf8), password: "000000") }
    }

    /// A modern file (AES-256-CBC, PBKDF2) reads the same way.
    @Test func aModernFileIsRead() async throws {
        let pki = try TestPKI()
        let folder = try Scratch.newFolder("unionpay-pfx-modern")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem")
        let certificate = folder.appendingPathComponent("cert.pem")
        let pfx = folder.appendingPathComponent("modern.pfx")
        try pki.merchantKey.pemRepresentation.write(to: key, atomically: true, encoding: .utf8)
        try pki.merchant.pemRepresentation.write(to: certificate, atomically: true, encoding: .utf8)
        let made = try await runSubprocess(
            "/usr/bin/env",
            ["openssl", "pkcs12", "-export", "-inkey", key.path, "-in", certificate.path, "-out", pfx.path, "-passout", "pass:s3cret"])
        try #require(made.status == 0, "\(made.stderr)")
        let bundle = try PKCS12Bundle(derRepresentation: try Data(contentsOf: pfx), password: "s3cret")
        #expect(bundle.certificate == pki.merchant && bundle.additionalCertificates.isEmpty)
    }
}

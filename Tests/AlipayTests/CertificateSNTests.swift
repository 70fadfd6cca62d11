import Alipay
import Cashier
import CashierCrypto
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Certificate SNs on certificates made by the `openssl` command, against the rule computed
/// independently here from openssl's own printout of the issuer and serial.
@Suite struct CertificateSNTests {
    static func openssl(_ arguments: [String], in folder: URL) throws -> String {
        let output = Pipe()
        let process = try ChildProcess("/usr/bin/openssl", arguments, directory: folder, stdout: .pipe(output), stderr: .null)
        let data = try output.fileHandleForReading.readToEndRetrying()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func snMatchesTheRuleAndRootBundleSkipsNonRSA() throws {
        let folder = Scratch.url("alipay-sn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.openssl(
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "rsa.key", "-out", "rsa.pem", "-days", "1", "-set_serial",
                "2019082200040",
                "-subj",
                "/C=CN/O=Ant Financial Certification Authority/OU=Certification Authority/CN=Ant Financial Certification Authority Class 1 R1",
            ], in: folder)
        _ = try Self.openssl(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ec.key", "-out", "ec.pem",
                "-days", "1", "-subj", "/C=CN/CN=EC Root",
            ],
            in: folder)
        let rsaPEM = try String(contentsOf: folder.appendingPathComponent("rsa.pem"), encoding: .utf8)
        let ecPEM = try String(contentsOf: folder.appendingPathComponent("ec.pem"), encoding: .utf8)
        let certificate = try X509Certificate(pemRepresentation: rsaPEM)

        // The rule, written out: issuer most-specific-first, "k=v" joined by ",", then the decimal serial.
        let issuer =
            "CN=Ant Financial Certification Authority Class 1 R1,OU=Certification Authority,O=Ant Financial Certification Authority,C=CN"
        let expected = Hex.encode(DigestAlgorithm.insecureMD5.hash(issuer + "2019082200040"))
        #expect(Alipay.CertificateSN.of(certificate) == expected)
        // openssl agrees on the serial.
        #expect(
            try Self.openssl(["x509", "-in", "rsa.pem", "-noout", "-serial"], in: folder).contains(
                String(2_019_082_200_040, radix: 16, uppercase: true)))

        #expect(try Alipay.CertificateSN.ofRootBundle(rsaPEM + ecPEM) == expected)
        #expect(try Alipay.CertificateSN.ofRootBundle(rsaPEM + rsaPEM) == expected + "_" + expected)
        #expect(throws: PaymentError.self) { try Alipay.CertificateSN.ofRootBundle(ecPEM) }
        try Alipay.CertificateSN.check(expected, against: certificate)
        let mismatch = #expect(throws: PaymentError.self) { try Alipay.CertificateSN.check("0123", against: certificate) }
        #expect(mismatch?.code == .unknownKey)
        #expect(throws: PaymentError.self) { try Alipay.CertificateSN.check(nil, against: certificate) }
    }
}

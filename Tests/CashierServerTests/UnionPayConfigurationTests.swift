import CashierSandbox
import CashierServer
import Foundation
import TestSupport
import Testing

/// `unionpay` in `cashier serve --config`: the signing `.pfx` (RC2-encrypted, as UnionPay's are)
/// with its password from the environment, or the PEM key and certificate; the root and middle
/// certificates; the environment; and a clear error for each mistake.
@Suite struct UnionPayConfigurationTests {
    typealias Folder = ConfigurationFileTests.Folder

    static let environment = ["CASHIER_SECRET_KEY": "sk_" + String(repeating: "a", count: 32), "PFX_PASSWORD": "000000"]

    /// A folder with the sandbox CA's test merchant as PEM and as a legacy `.pfx`, and its root and
    /// middle (the middle as DER: UnionPay ships `.cer` files either way).
    static func folder() async throws -> (Folder, UnionPayTestCA) {
        let folder = try Folder()
        let ca = UnionPayTestCA.shared
        try folder.write(ca.merchantKey.pemRepresentation, "sign.key")
        try folder.write(ca.merchantCertificate.pemRepresentation, "sign.pem")
        try folder.write(ca.root.pemRepresentation, "acp_root.cer")
        try Data(ca.middle.derRepresentation).write(to: folder.url.appendingPathComponent("acp_middle.cer"))
        try folder.write("not a certificate", "junk.cer")
        let made = try await runSubprocess(
            "/usr/bin/env",
            [
                "openssl", "pkcs12", "-export", "-legacy", "-inkey", folder.url.appendingPathComponent("sign.key").path, "-in",
                folder.url.appendingPathComponent("sign.pem").path, "-out", folder.url.appendingPathComponent("acp_sign.pfx").path,
                "-passout", "pass:000000", "-certpbe", "PBE-SHA1-RC2-40", "-keypbe", "PBE-SHA1-3DES",
            ])
        try #require(made.status == 0, "\(made.stderr)")
        return (folder, ca)
    }

    static func read(_ folder: Folder, _ unionpay: [String: Any], environment: [String: String] = environment) throws -> Result<
        ConfigurationFile, ConfigurationFile.Problem
    > {
        let object: [String: Any] = [
            "public_base_url": "https://pay.example.com", "secret_key_env": "CASHIER_SECRET_KEY", "publishable_key": "pk_live_1",
            "unionpay": unionpay,
        ]
        do {
            return .success(try ConfigurationFile(contentsOf: try folder.config(object), environment: environment))
        } catch let problem as ConfigurationFile.Problem {
            return .failure(problem)
        }
    }

    static let certificates = ["root_cert_file": "acp_root.cer", "middle_cert_file": "acp_middle.cer"]

    @Test func theLegacyPfxOrThePEMKeyConfigureIt() async throws {
        let (folder, ca) = try await Self.folder()
        let pfx = try Self.read(
            folder,
            ["mer_id": ca.merchantID, "sign_pfx_file": "acp_sign.pfx", "sign_pfx_password_env": "PFX_PASSWORD"].merging(
                Self.certificates
            ) { $1 }
        ).get().configuration.unionpay
        #expect(pfx?.signingKey.certID == ca.merchantCertificate.serialNumberDecimal && pfx?.merchantID == ca.merchantID)
        #expect(pfx?.environment == .production && pfx?.environment.pluginMode == "00")
        #expect(pfx?.endpoints.gateway.absoluteString == "https://gateway.95516.com" && pfx?.checkoutPayURL == nil)
        let pem = try Self.read(
            folder,
            [
                "mer_id": ca.merchantID, "sign_key_file": "sign.key", "sign_cert_file": "sign.pem", "environment": "test",
                "gateway_url": "http://127.0.0.1:9/unionpay", "file_url": "http://127.0.0.1:10/",
                "checkout_pay_url": "https://app.example.com/up",
            ].merging(Self.certificates) { $1 }
        ).get().configuration.unionpay
        #expect(pem?.signingKey.certID == ca.merchantCertificate.serialNumberDecimal && pem?.environment.pluginMode == "01")
        #expect(pem?.verifier.owner == .unionPayOrTestEnvironment && pem?.verifier.middle == ca.middle)
        #expect(pem?.endpoints.queryURL.absoluteString == "http://127.0.0.1:9/unionpay/gateway/api/queryTrans.do")
        #expect(pem?.checkoutPayURL?.absoluteString == "https://app.example.com/up")
    }

    @Test func eachMistakeNamesItsField() async throws {
        let (folder, ca) = try await Self.folder()
        let good = ["mer_id": ca.merchantID, "sign_pfx_file": "acp_sign.pfx", "sign_pfx_password_env": "PFX_PASSWORD"].merging(
            Self.certificates
        ) { $1 }
        func problem(_ change: (inout [String: String]) -> Void, environment: [String: String] = Self.environment) throws -> String {
            var object = good
            change(&object)
            switch try Self.read(folder, object, environment: environment) {
            case .success: return "accepted"
            case .failure(let problem): return problem.description
            }
        }
        #expect(try problem { _ in } == "accepted")
        #expect(
            try problem({ _ in }, environment: ["CASHIER_SECRET_KEY": Self.environment["CASHIER_SECRET_KEY"]!]).contains(
                "unionpay.sign_pfx_password_env: PFX_PASSWORD is not set"))
        let wrong = try problem({ _ in }, environment: Self.environment.merging(["PFX_PASSWORD": "111111"]) { $1 })
        #expect(wrong.contains("unionpay.sign_pfx_file") && wrong.contains("sign_pfx_password"), "\(wrong)")
        #expect(try problem { $0["mer_id"] = nil } == "config: unionpay.mer_id: is missing")
        #expect(try problem { $0["sign_pfx_password"] = "000000" }.contains("secrets are not written in the file"))
        let none = try problem {
            $0["sign_pfx_file"] = nil
            $0["sign_pfx_password_env"] = nil
        }
        #expect(none.contains("unionpay.sign_pfx_file: is missing") && none.contains("sign_key_env"), "\(none)")
        #expect(try problem { $0["sign_cert_file"] = "sign.pem" }.contains("not parts of both"))
        #expect(try problem { $0["environment"] = "staging" }.contains(#"unionpay.environment: 'staging' is not "production" or "test""#))
        #expect(try problem { $0["root_cert_file"] = "junk.cer" }.contains("unionpay.root_cert_file: is not an X.509 certificate"))
        #expect(try problem { $0["middle_cert_file"] = "missing.cer" }.contains("unionpay.middle_cert_file"))
        #expect(try problem { $0["gateway_url"] = "gateway.95516.com" }.contains("unionpay.gateway_url"))
        #expect(try problem { $0["merid"] = "1" }.contains("unionpay.merid: is not a setting: did you mean mer_id?"))
    }
}

import Cashier
import CashierCrypto
import CashierSandboxMode
import Foundation
import TestSupport
import Testing

@testable import CashierServer
@testable import CashierStore

/// `cashier doctor`: each check finds what it is for, on files a merchant could have written —
/// generated keys and certificates — and says what to fix; a configuration with nothing wrong
/// is clean. Online, against the sandbox: every provider's credentials proven by a query for an
/// order that does not exist, and each wrong credential named.
@Suite struct DoctorTests {
    /// The merchant API certificate (v2's `api_certificate_file`, v3's `certificate_file`) and its key, valid `days`.
    static func apiCertificate(_ files: GoLiveFiles, key: RSAPrivateKey, days: Double, serial: UInt64 = 0x5157_F09E) throws
        -> X509Certificate
    {
        try files.certificate("apiclient_cert.pem", days: days, publicKey: .rsa(key.publicKey), signer: .rsa(key), serial: serial)
    }

    @Test(.timeLimit(.minutes(2)))
    func aConfigurationWithNothingWrongIsClean() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        var files = try GoLiveFiles(mode: mode)
        defer { files.remove() }
        let v3 = try #require(mode.configuration.wechatV3)
        let certificate = try Self.apiCertificate(files, key: v3.merchant.privateKey, days: 400)
        try files.set(["wechat_v3", "certificate_file"], "keys/apiclient_cert.pem")
        try files.set(["wechat_v3", "certificate_serial"], certificate.serialNumberHex)
        try files.set(["wechat", "api_certificate_file"], "keys/apiclient_cert.pem")
        try files.set(["wechat", "api_certificate_key_file"], "keys/apiclient_key.pem")
        // The sandbox's gateways are what a production file must not name: left out here.
        for section in ["wechat", "wechat_v3"] { try files.set([section, "base_url"], nil) }
        try files.set(["alipay", "gateway"], nil)
        let store = try SQLiteOrderStore(path: files.config["database"] as? String ?? "")
        try await store.migrate()
        await store.close()

        let findings = await Doctor(file: files.configFile, environment: [:]).offline()
        let needing = findings.filter(\.needsAction)
        #expect(needing.isEmpty, "\(needing.map(\.textLines).joined())")
        #expect(Doctor.exitStatus(findings) == 0)
        let byCheck = Dictionary(findings.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byCheck["config"]?.status == .ok)
        #expect(byCheck["wechat.api_certificate"]?.daysLeft == 399 || byCheck["wechat.api_certificate"]?.daysLeft == 400)
        #expect(byCheck["wechat_v3.certificate.key"]?.status == .ok)
        #expect(byCheck["alipay.alipay_public_key"]?.status == .ok)
        #expect(byCheck["database.migrations"]?.status == .ok)
        #expect(byCheck["files.permissions"]?.status == .ok)
        #expect(byCheck["clock"]?.status == .note)
        // The same certificates are what /metrics reports.
        let parsed = try files.parsed()
        #expect(Set(parsed.configuration.certificates.map(\.name)) == ["wechat.api_certificate", "wechat_v3.certificate"])
        await mode.sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2)))
    func everyMistakeIsFoundWithWhatToFix() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        var files = try GoLiveFiles(mode: mode, publicBaseURL: "http://127.0.0.1:8080")
        defer { files.remove() }
        let v3 = try #require(mode.configuration.wechatV3)
        // The v2 API certificate ends in five days, and its key is another one.
        let other = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        _ = try Self.apiCertificate(files, key: other, days: 5.5)
        try files.set(["wechat", "api_certificate_file"], "keys/apiclient_cert.pem")
        try files.set(["wechat", "api_certificate_key_file"], "keys/apiclient_key.pem")
        // v3's certificate is right but certificate_serial names another.
        _ = try files.certificate(
            "v3_cert.pem", days: 200, publicKey: .rsa(v3.merchant.privateKey.publicKey), signer: .rsa(other), serial: 42)
        try files.set(["wechat_v3", "certificate_file"], "keys/v3_cert.pem")
        // Alipay's public key is the app's own.
        let alipay = try #require(mode.configuration.alipay)
        try files.key("alipay_public.pem", alipay.privateKey.publicKey.pemRepresentation)
        // Apple Pay's merchant identity certificate ends in 20 days; its root CA has ended.
        let identityKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        _ = try files.certificate("identity.pem", days: 20.5, publicKey: .rsa(identityKey.publicKey), signer: .rsa(identityKey))
        try files.key("identity.key", identityKey.pemRepresentation)
        let caKey = try P256PrivateKey()
        _ = try files.certificate("root.pem", days: -3, publicKey: .p256(caKey.publicKey), signer: .p256(caKey))
        try files.set(
            ["applepay"],
            [
                "merchant_identifier": "merchant.com.example", "country_code": "CN", "display_name": "Shop", "supported_networks": ["visa"],
                "processor": "stripe", "stripe": ["secret_key_file": "keys/stripe"], "root_ca_file": "keys/root.pem",
                "web": [
                    "domain": "shop.example.com", "identity_certificate_file": "keys/identity.pem",
                    "identity_key_file": "keys/identity.key",
                ],
            ])
        try files.key("stripe", "sk_test_doctor")
        // The WeChat Pay API key file is readable by everyone.
        try files.key("wechat_api_key", mode.wechatMerchant.apiKey, mode: 0o644)
        // A webhook over plain http to another host.
        try files.set(["webhook"], ["url": "http://shop.example.com/hooks", "secret_file": "keys/secret_key"])
        // The database was migrated by a newer Cashier.
        let database = files.config["database"] as? String ?? ""
        let store = try SQLiteOrderStore(path: database)
        try await store.migrate()
        _ = try await store.withTransaction { session in
            try session.connection.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('999_newer', 0)")
        }
        await store.close()

        let findings = await Doctor(file: files.configFile, environment: [:]).offline()
        func finding(_ check: String, _ status: DoctorFinding.Status, containing words: String) -> DoctorFinding? {
            findings.first { $0.check == check && $0.status == status && $0.message.contains(words) }
        }
        let expected: [(String, DoctorFinding.Status, String)] = [
            ("public_base_url", .problem, "https URLs only"), ("public_base_url", .problem, "this machine"),
            ("wechat.api_certificate", .problem, "ends in 5 day"), ("wechat.api_certificate.key", .problem, "not the certificate's"),
            ("wechat_v3.certificate_serial", .problem, "SIGN_ERROR"), ("alipay.alipay_public_key", .problem, "app's own public key"),
            ("applepay.web.identity_certificate", .warning, "ends in 20 days"), ("applepay.root_ca", .problem, "ended on"),
            ("files.permissions", .problem, "wechat_api_key"), ("webhook.url", .warning, "plain http"),
            ("wechat.base_url", .warning, "127.0.0.1"), ("database.migrations", .problem, "newer Cashier"),
        ]
        for (check, status, words) in expected {
            let found = finding(check, status, containing: words)
            #expect(found != nil, "no \(status) \(check) saying '\(words)' in:\n\(findings.map(\.textLines).joined())")
            #expect(found?.fix?.isEmpty == false, "\(check) says what to fix")
        }
        #expect(finding("wechat.api_certificate", .problem, containing: "ends")?.daysLeft == 5)
        #expect(Doctor.exitStatus(findings) == 1)
        // The server's start runs the same checks but the database's (it opens that itself).
        let atStart = await Doctor(file: files.configFile, environment: [:]).atStart()
        #expect(atStart.contains { $0.check == "wechat.api_certificate" && $0.status == .problem })
        #expect(!atStart.contains { $0.check.hasPrefix("database") || $0.check == "config" })
        await mode.sandbox.stop()
    }

    /// Online against the sandbox: the three providers' credentials proven, v3's platform
    /// certificate downloaded with its days left, the clock compared, this server reached.
    @Test(.timeLimit(.minutes(2)))
    func onlineTheProvidersAcceptTheCredentials() async throws {
        let fixture = try await ServerFixture(listening: true)  // the doctor reaches the sandbox and the server over sockets
        let files = try GoLiveFiles(mode: fixture.mode, publicBaseURL: fixture.server.baseURL.absoluteString)
        defer { files.remove() }
        let findings = await Doctor(file: files.configFile, environment: [:]).online(transport: URLSessionTransport())
        let byCheck = Dictionary(findings.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
        for check in ["wechat.online", "wechat_v3.online", "alipay.online", "clock", "public_base_url.reachable"] {
            #expect(byCheck[check]?.status == .ok, "\(check): \(byCheck[check]?.textLines ?? "missing")")
        }
        #expect(byCheck["wechat.online"]?.message.contains("ORDERNOTEXIST") == true)
        #expect(byCheck["alipay.online"]?.message.contains("ACQ.TRADE_NOT_EXIST") == true)
        let platform = findings.first { $0.check.hasPrefix("wechat_v3.platform_certificate.") }
        #expect(platform?.daysLeft ?? -1 > 0, "\(findings.map(\.textLines).joined())")
        await fixture.stop()
    }

    /// Each wrong credential is named: the v2 API key, the v3 APIv3 key and private key, and
    /// Alipay's public key — and the clock, against a provider whose Date is ten minutes ahead.
    @Test(.timeLimit(.minutes(2)))
    func onlineEachWrongCredentialIsNamed() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        let files = try GoLiveFiles(mode: mode, publicBaseURL: "http://127.0.0.1:9")
        defer { files.remove() }
        try files.key("wechat_api_key", SecureRandom.alphanumeric(count: 32))
        try files.key("api_v3_key", SecureRandom.alphanumeric(count: 32))
        try files.key("alipay_public.pem", try RSAPrivateKey(generatingKeySizeInBits: 2048).publicKey.pemRepresentation)
        let findings = await Doctor(file: files.configFile, environment: [:]).online(transport: SkewedTransport(skew: 600))
        let byCheck = Dictionary(findings.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byCheck["wechat.online"]?.status == .problem && byCheck["wechat.online"]?.fix?.contains("api_key") == true)
        #expect(byCheck["wechat_v3.platform_certificates"]?.status == .problem)
        #expect(byCheck["wechat_v3.platform_certificates"]?.fix?.contains("api_v3_key") == true)
        #expect(byCheck["alipay.online"]?.status == .problem && byCheck["alipay.online"]?.fix?.contains("alipay_public_key_file") == true)
        #expect(
            byCheck["clock"]?.status == .problem && byCheck["clock"]?.message.contains("behind") == true,
            "\(byCheck["clock"]?.message ?? "")")
        #expect(byCheck["public_base_url.reachable"]?.status == .warning)

        // The v3 private key replaced by another: refused as a signature (SIGN_ERROR).
        try files.key("api_v3_key", mode.configuration.wechatV3?.merchant.apiV3Key ?? "")
        try files.key("apiclient_key.pem", try RSAPrivateKey(generatingKeySizeInBits: 2048).pemRepresentation)
        let again = await Doctor(file: files.configFile, environment: [:]).online(transport: URLSessionTransport())
        let v3 = again.first { $0.check == "wechat_v3.online" }
        #expect(v3?.status == .problem && v3?.message.contains("SIGN_ERROR") == true, "\(v3?.textLines ?? "missing")")
        await mode.sandbox.stop()
    }

    /// Answers as the sandbox does, with a `Date` header `skew` seconds ahead of this machine.
    struct SkewedTransport: HTTPTransport {
        let skew: TimeInterval
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            var response = try await URLSessionTransport().send(request)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            response.headers.set("Date", formatter.string(from: Date().addingTimeInterval(skew)))
            return response
        }
    }
}

import Alipay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import TestSupport
import Testing

/// Certificate mode against the sandbox, with certificates issued by the `openssl` command: a
/// root, the app's certificate and one for the sandbox's Alipay key.
@Suite struct AlipayCertificateModeTests {
    struct Certificates {
        let root: String
        let app: String
        let alipay: String
        let otherAlipay: String
    }

    static func issue(appKey: RSAPublicKey, alipayKey: RSAPublicKey) async throws -> Certificates {
        let folder = Scratch.url("alipay-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func openssl(_ arguments: [String]) async throws {
            let result = try await runSubprocess("/usr/bin/openssl", arguments, in: folder)
            try #require(result.status == 0, "openssl \(arguments.first ?? ""): \(result.stderr)")
        }
        try appKey.pemRepresentation.write(to: folder.appendingPathComponent("app.pub"), atomically: true, encoding: .utf8)
        try alipayKey.pemRepresentation.write(to: folder.appendingPathComponent("alipay.pub"), atomically: true, encoding: .utf8)
        try await openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "root.key", "-out", "root.pem", "-days", "2", "-subj",
            "/C=CN/O=Sandbox Certification Authority/CN=Sandbox Root Class 2",
        ])
        for (name, key, serial) in [("app", "app.pub", "7001"), ("alipay", "alipay.pub", "7002"), ("other", "alipay.pub", "7003")] {
            try await openssl([
                "x509", "-new", "-subj", "/C=CN/O=Sandbox/CN=\(name)", "-force_pubkey", key, "-CA", "root.pem", "-CAkey", "root.key",
                "-set_serial", serial, "-days", "2", "-out", "\(name).pem",
            ])
        }
        func read(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent("\(name).pem"), encoding: .utf8)
        }
        return Certificates(root: try read("root"), app: try read("app"), alipay: try read("alipay"), otherAlipay: try read("other"))
    }

    @Test func answersMustNameTheLoadedAlipayCertificate() async throws {
        let appKey = TestKeys.rsa(0)
        let appID = "2021000000000009"
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [appID: appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let issued = try await Self.issue(appKey: appKey.publicKey, alipayKey: sandbox.alipay.alipayPublicKey)
        let mode = try Alipay.CertificateMode(
            appCertificatePEM: issued.app, alipayCertificatePEM: issued.alipay, rootBundlePEM: issued.root)
        let client = Alipay.Client(
            appID: appID, signer: Alipay.Signer(privateKey: appKey), certificates: mode, gateway: sandbox.alipayGatewayURL)

        // Requests carry both SNs, computed by the rule from the certificates.
        let parameters = try client.signedParameters(method: "alipay.trade.query", biz: ["out_trade_no": "X"])
        #expect(parameters["app_cert_sn"] == Alipay.CertificateSN.of(try X509Certificate(pemRepresentation: issued.app)))
        #expect(parameters["alipay_root_cert_sn"] == (try Alipay.CertificateSN.ofRootBundle(issued.root)))
        let orderString = try Alipay.OrderString.make(
            appID: appID, signer: Alipay.Signer(privateKey: appKey), notifyURL: "https://n", bizContent: "{}", certificates: mode)
        #expect(orderString.hasPrefix("alipay_root_cert_sn=") && orderString.contains("&app_cert_sn="))

        // The answer names the loaded certificate: verified, and Alipay's refusal comes through.
        await sandbox.alipay.useCertificate(sn: Alipay.CertificateSN.of(mode.alipayCertificate))
        let missing = await #expect(throws: PaymentError.self) { try await client.query(outTradeNo: "NONE") }
        #expect(missing?.providerCode == "ACQ.TRADE_NOT_EXIST")
        // Another certificate (Alipay rotated it, or a forger) or none at all: refused before any use.
        await sandbox.alipay.useCertificate(sn: Alipay.CertificateSN.of(try X509Certificate(pemRepresentation: issued.otherAlipay)))
        let rotated = await #expect(throws: PaymentError.self) { try await client.query(outTradeNo: "NONE") }
        #expect(rotated?.code == .unknownKey)
        await sandbox.alipay.useCertificate(sn: nil)
        let absent = await #expect(throws: PaymentError.self) { try await client.query(outTradeNo: "NONE") }
        #expect(absent?.code == .unknownKey)

        // Notifications: verified with the certificate's key; a foreign alipay_cert_sn is refused
        // before anything else is looked at.
        await sandbox.alipay.useCertificate(sn: Alipay.CertificateSN.of(mode.alipayCertificate))
        let inbox = try AlipaySandboxTests.Inbox()
        let number = TradeNumber.generate()
        _ = try await client.precreate(
            outTradeNo: number, total: Money(minorUnits: 100, currency: .cny), subject: "c", notifyURL: inbox.url)
        await sandbox.alipay.pay(outTradeNo: number, outcome: .success)
        let body = try #require(try await inbox.first())
        let notification = try Alipay.Notification.verify(body, certificates: mode, appID: appID)
        #expect(notification.outTradeNo == number)
        let foreign = body + Array("&alipay_cert_sn=0123abcd".utf8)
        let refused = #expect(throws: PaymentError.self) { try Alipay.Notification.verify(foreign, certificates: mode) }
        #expect(refused?.code == .unknownKey)
        await sandbox.stop()
    }

    /// Transfers and the royalty calls go through the same signing: in certificate mode they carry
    /// both SNs, and the sandbox's answers (naming its certificate) verify.
    @Test func transfersAndRoyaltyCallsAreSignedInCertificateMode() async throws {
        let appKey = TestKeys.rsa(0)
        let appID = "2021000000000019"
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [appID: appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let issued = try await Self.issue(appKey: appKey.publicKey, alipayKey: sandbox.alipay.alipayPublicKey)
        let mode = try Alipay.CertificateMode(
            appCertificatePEM: issued.app, alipayCertificatePEM: issued.alipay, rootBundlePEM: issued.root)
        let client = Alipay.Client(
            appID: appID, signer: Alipay.Signer(privateKey: appKey), certificates: mode, gateway: sandbox.alipayGatewayURL)
        await sandbox.alipay.useCertificate(sn: Alipay.CertificateSN.of(mode.alipayCertificate))
        for method in ["alipay.fund.trans.uni.transfer", "alipay.trade.order.settle", "alipay.fund.account.query"] {
            let parameters = try client.signedParameters(method: method, biz: [:])
            #expect(parameters["app_cert_sn"] == mode.appCertSN && parameters["alipay_root_cert_sn"] == mode.rootCertSN)
        }
        let paid = try await client.uniTransfer(
            outBizNo: "CT" + SecureRandom.alphanumeric(count: 12), amount: Money(minorUnits: 100, currency: .cny),
            payee: .init(identity: "2088000000000101"), title: "cert")
        #expect(paid.status == "SUCCESS")
        #expect(try await client.fundAccount(alipayUserID: sandbox.alipay.sellerID).available.isPositive)
        #expect(
            try await client.bindRoyaltyRelation(outRequestNo: "CB1", receivers: [.init(type: "userId", account: "2088000000000101")])
                == "SUCCESS")
        await sandbox.stop()
    }
}

import CashierCrypto
import CashierSandbox
import Foundation
import TestSupport
import Testing

/// Two Alipay SDKs from PyPI against the Alipay sandbox: python-alipay-sdk 3.4.0 (in .venv) and the
/// official alipay-sdk-python (in .venv-alipay-official: both install a top-level `alipay`).
/// Their signed requests are verified by the sandbox, the sandbox's signed answers and
/// notifications by them.
@Suite struct PythonAlipaySDKInteropTests {
    @Test(.timeLimit(.minutes(3)))
    func pythonAlipaySDKAgainstTheSandbox() async throws {
        let summary = try await run(
            script: "python_alipay_sdk.py", venv: nil,
            keys: { app, alipay in (app.pkcs1PEMRepresentation, alipay.pemRepresentation) })
        #expect(summary["refund"] == "0.30")
        #expect(summary["close"] == "TRADE_CLOSED")
        // At the counter: trade_pay paid at once, 10003 then paid, a cancel that closes.
        #expect(summary["trade_pay"]?.hasPrefix("2026") == true && summary["password"] == "TRADE_SUCCESS" && summary["cancel"] == "close")
        #expect(summary["refund_notification"]?.hasSuffix("R1") == true)
        // As an ISV with the merchant's app_auth_token: the notification names the merchant.
        #expect(summary["isv"] == "2021000000000077")
    }

    @Test(.timeLimit(.minutes(3)))
    func officialAlipaySDKPlacesAndQueriesATrade() async throws {
        // The official SDK takes keys as the console shows them: bare base64.
        let summary = try await run(
            script: "alipay_sdk_python.py", venv: "alipay-official",
            keys: { app, alipay in (Self.bareBase64(app.pkcs1PEMRepresentation), Self.bareBase64(alipay.pemRepresentation)) })
        #expect(summary["trade_no"] != nil && summary["trade_no"] == summary["notification"])
        #expect(summary["wap"] == "cashier")
    }

    static func bareBase64(_ pem: String) -> String {
        pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    /// Starts a sandbox with a fresh app key, runs `script` in the venv with the config on stdin,
    /// and returns the JSON object it prints.
    private func run(
        script: String, venv: String?, keys: (RSAPrivateKey, RSAPublicKey) -> (app: String, alipay: String)
    ) async throws -> [String: String] {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, venv.map { [$0] } ?? [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let appKey = TestKeys.rsa(0)
        let appID = "2021000000000002"
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [appID: appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        await sandbox.alipay.setPasswordDelay(0.3)
        let (app, alipay) = keys(appKey, sandbox.alipay.alipayPublicKey)
        let config: [String: String] = [
            "gateway": sandbox.alipayGatewayURL.absoluteString,
            "payer": sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString,
            "app_id": appID, "app_private_key": app, "alipay_public_key": alipay,
            "wrong_alipay_public_key": keys(appKey, appKey.publicKey).alipay,
            "prefix": "AP\(Int(Date().timeIntervalSince1970))",
        ]
        let path = packageRoot.appendingPathComponent("scripts/interop/\(script)").path
        let result = try await runSubprocess(python, [path], stdin: JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        try #require(result.status == 0, "\(script) failed:\n\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
    }
}

import CashierCrypto
import CashierSandbox
import Foundation
import TestSupport
import Testing

/// python-alipay-sdk 3.4.0 (PyPI, in .venv) against the Alipay sandbox: its signed requests are
/// verified by the sandbox, the sandbox's signed answers and notification by it.
@Suite struct PythonAlipaySDKInteropTests {
    @Test(.timeLimit(.minutes(3)))
    func pythonAlipaySDKAgainstTheSandbox() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let appKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let appID = "2021000000000002"
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [appID: appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let config: [String: String] = [
            "gateway": sandbox.alipayGatewayURL.absoluteString,
            "payer": sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString,
            "app_id": appID, "app_private_key": appKey.pkcs1PEMRepresentation,
            "alipay_public_key": sandbox.alipay.alipayPublicKey.pemRepresentation,
            "prefix": "AP\(Int(Date().timeIntervalSince1970))",
        ]
        let script = packageRoot.appendingPathComponent("scripts/interop/python_alipay_sdk.py").path
        let result = try await runSubprocess(python, [script], stdin: JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        #expect(result.status == 0, "python-alipay-sdk interop failed:\n\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(summary?["refund"] == "0.30")
        #expect(summary?["close"] == "TRADE_CLOSED")
    }
}

import CashierSandbox
import Foundation
import TestSupport
import Testing
import WeChatPay

/// wechatpy 1.8.18 (from PyPI, in the project's .venv) against the v2 sandbox: it places,
/// queries, closes and refunds orders, and its `parse_payment_result` accepts the sandbox's
/// notification.
@Suite struct WeChatPyInteropTests {
    /// The merchant wechatpy signs as.
    static let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")

    /// Runs `scripts/interop/{script}` with the venv's Python against a v2 sandbox for ``merchant``
    /// (time scaled by 0.001), stopped when the script ends.
    /// - Parameters:
    ///   - script: the script's file name.
    ///   - configure: prepares the started sandbox and returns the config the script reads on stdin.
    /// - Returns: the script's JSON summary.
    static func run(_ script: String, configure: (SandboxServer) async -> [String: String]) async throws -> [String: String]? {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let config = await configure(sandbox)
        let path = packageRoot.appendingPathComponent("scripts/interop/" + script).path
        let result = try await runSubprocess(python, [path], stdin: JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        #expect(result.status == 0, "\(script) failed:\n\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
    }

    @Test(.timeLimit(.minutes(3)))
    func wechatpyAgainstTheV2Sandbox() async throws {
        let summary = try await Self.run("wechatpy_v2.py") { sandbox in
            await sandbox.wechatV2.setPasswordDelay(0.3)
            return [
                "gateway": sandbox.wechatV2URL.absoluteString,
                "payer": sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString,
                "appid": Self.merchant.appID, "mch_id": Self.merchant.mchID, "api_key": Self.merchant.apiKey,
                "prefix": "PY\(Int(Date().timeIntervalSince1970))",
            ]
        }
        #expect(summary?["close"] == "CLOSED")
        #expect(summary?["wrong_key"] == "refused")
        #expect(summary?["notification"]?.hasPrefix("42000") == true)
        // At the counter: micropay paid at once, USERPAYING then paid, reversed, refused.
        #expect(summary?["partner"]?.hasPrefix("42000") == true)  // sub_mch_id: placed, notified, queried, refunded
        #expect(summary?["micropay"]?.hasPrefix("42000") == true && summary?["password"] == "SUCCESS" && summary?["reverse"] == "REVOKED")
    }

    /// wechatpy's `withhold`: `apply_signing`'s `entrustweb` address opens the signing page, the
    /// payer agrees through the sandbox's payer API, `query_signing`, `apply_deduct` accepted then
    /// settled (`query_order` ACCEPT then SUCCESS, and PAY_FAIL with the balance made short),
    /// `apply_cancel_signing`; its `parse_payment_result` verifies the contract and deduction
    /// notifications. Only `get_external_ip` (a DNS lookup) is patched in the script.
    @Test(.timeLimit(.minutes(3)))
    func wechatpyWithholdAgainstTheV2Sandbox() async throws {
        let summary = try await Self.run("wechatpy_withhold.py") { sandbox in
            await sandbox.wechatV2.setDeductionDelay(2)  // on the real clock: ACCEPT, then settled when asked two seconds later
            return [
                "gateway": sandbox.wechatV2URL.absoluteString,
                "contracts": sandbox.baseURL.appendingPathComponent("sandbox/wechat/contracts/").absoluteString,
                "appid": Self.merchant.appID, "mch_id": Self.merchant.mchID, "api_key": Self.merchant.apiKey, "plan_id": "12535",
                "prefix": "PW\(Int(Date().timeIntervalSince1970))",
            ]
        }
        #expect(summary?["query_signing"] == "0" && summary?["sign"]?.isEmpty == false)
        #expect(summary?["deduct"]?.hasPrefix("42000") == true && summary?["pay_fail"] == "PAY_FAIL")
        #expect(summary?["cancel"] == "3" && summary?["after_cancel"] == "CONTRACT_NOT_EXIST")
    }
}

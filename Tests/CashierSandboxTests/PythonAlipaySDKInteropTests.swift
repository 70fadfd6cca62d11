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
        // Agreements: sdk_execute's sign string signed by the payer, a charge under it once a period, unsigned.
        #expect(summary["agreement_charge"]?.hasPrefix("2026") == true && summary["agreement_twice"] == "ACQ.CYCLE_PAY_DATE_NOT_MATCH")
        #expect(summary["agreement_status"] == "STOP")
    }

    /// Profit sharing and transfers through python-alipay-sdk, unmodified: a royalty relation and
    /// the settle queries by `server_api`, an async `api_alipay_trade_order_settle` finished on the
    /// sandbox's royalty clock with its `alipay.trade.order.settle.notify` at the application gateway
    /// (signature checked with the SDK's key), then `DCAliPay` (certificate mode, certificates
    /// issued by `openssl`): `api_alipay_fund_trans_uni_transfer` and `alipay.fund.account.query`.
    @Test(.timeLimit(.minutes(3)))
    func pythonAlipaySDKSettlesAndTransfers() async throws {
        let summary = try await run(
            script: "python_alipay_royalty.py", venv: nil,
            keys: { app, alipay in (app.pkcs1PEMRepresentation, alipay.pemRepresentation) },
            extra: { sandbox, appKey in
                let issued = try await AlipayCertificateModeTests.issue(appKey: appKey.publicKey, alipayKey: sandbox.alipay.alipayPublicKey)
                return [
                    "app_cert": issued.app, "alipay_cert": issued.alipay, "root_cert": issued.root, "seller_id": sandbox.alipay.sellerID,
                ]
            })
        #expect(summary["settle"] == "SUCCESS" && summary["unsettled"] == "8.50")
        #expect(summary["transfer"] == "SUCCESS" && summary["spent"] == "1.00")
        #expect(summary["relation"] == "2088000000000101")
    }

    /// Agreements (周期扣款) through python-alipay-sdk, unmodified: `client_api` builds
    /// `alipay.user.agreement.page.sign` as a page address (the payer's page, then the payer's JSON
    /// call) and as the app's sign string; `server_api` queries the agreement, charges under it
    /// (`alipay.trade.pay` with `agreement_params`: paid once a period, refusals by `sub_code`) and
    /// unsigns it; `dut_user_sign` and both `dut_user_unsign`s verify with the SDK's `verify`.
    @Test(.timeLimit(.minutes(3)))
    func pythonAlipaySDKSignsChargesAndEndsAgreements() async throws {
        let summary = try await run(
            script: "python_alipay_agreements.py", venv: nil,
            keys: { app, alipay in (app.pkcs1PEMRepresentation, alipay.pemRepresentation) })
        #expect(summary["paid"]?.hasPrefix("2026") == true && summary["second"] == "10000")
        #expect(summary["again"] == "ACQ.CYCLE_PAY_DATE_NOT_MATCH" && summary["short"] == "ACQ.BUYER_BALANCE_NOT_ENOUGH")
        #expect(summary["sign_notification"] == "NORMAL" && summary["merchant_unsign"] == "UNSIGN")
        #expect(
            summary["payer_unsign"] == "dut_user_unsign" && summary["stopped"] == "STOP" && summary["gone"] == "ACQ.AGREEMENT_NOT_EXIST")
    }

    static func bareBase64(_ pem: String) -> String {
        pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    /// Starts a sandbox with a fresh app key, runs `script` in the venv with the config on stdin,
    /// and returns the JSON object it prints.
    private func run(
        script: String, venv: String?, keys: (RSAPrivateKey, RSAPublicKey) -> (app: String, alipay: String),
        extra: (SandboxServer, RSAPrivateKey) async throws -> [String: String] = { _, _ in [:] }
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
        var config: [String: String] = [
            "gateway": sandbox.alipayGatewayURL.absoluteString,
            "payer": sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString,
            "app_id": appID, "app_private_key": app, "alipay_public_key": alipay,
            "wrong_alipay_public_key": keys(appKey, appKey.publicKey).alipay,
            "prefix": "AP\(Int(Date().timeIntervalSince1970))",
        ]
        config.merge(try await extra(sandbox, appKey)) { first, _ in first }
        let path = packageRoot.appendingPathComponent("scripts/interop/\(script)").path
        let result = try await runSubprocess(python, [path], stdin: JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        try #require(result.status == 0, "\(script) failed:\n\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
    }
}

import CashierCrypto
import CashierSandbox
import Foundation
import TestSupport
import Testing
import WeChatPay

/// wechatpayv3 2.0.4 (PyPI, in .venv) against the v3 sandbox, in certificate mode, in
/// public-key mode and in partner mode (as a service provider for a sub-merchant, through the
/// partner APIs): it pays, queries, refunds and closes, and its `callback()` accepts the
/// sandbox's notifications.
@Suite struct WeChatPayV3InteropTests {
    @Test(.timeLimit(.minutes(3)), arguments: ["certificate", "public_key", "partner"])
    func wechatpayv3AgainstTheV3Sandbox(mode: String) async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let merchantKey = TestKeys.rsa(0)
        let apiV3Key = "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb"
        let merchant = WeChatV3Sandbox.Merchant(
            mchID: "1900000109", certificateSerial: "444F4864EA9B34415B5C0CC7FB3C6C0B1A2F3E4D", publicKey: merchantKey.publicKey,
            apiV3Key: apiV3Key)
        let sandbox = SandboxServer(wechatMerchants: [], wechatV3Merchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        if mode == "public_key" { await sandbox.wechatV3.setSigningMode(.publicKey) }
        let config: [String: String] = [
            "gateway": sandbox.wechatV3URL.absoluteString, "payer": sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString,
            "mchid": merchant.mchID, "serial": merchant.certificateSerial, "private_key": merchantKey.pemRepresentation,
            "apiv3_key": apiV3Key,
            "appid": "wxd678efh567hg6787", "mode": mode, "platform_cert": sandbox.wechatV3.platformCertificate.pemRepresentation,
            "public_key": sandbox.wechatV3.platformPublicKey.pemRepresentation, "public_key_id": sandbox.wechatV3.publicKeyID,
            "sub_mchid": "1900000777", "prefix": "V3\(mode.prefix(1).uppercased())\(Int(Date().timeIntervalSince1970))",
        ]
        let script = packageRoot.appendingPathComponent("scripts/interop/wechatpayv3_v3.py").path
        let result = try await runSubprocess(python, [script], stdin: JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        #expect(result.status == 0, "wechatpayv3 interop (\(mode)) failed:\n\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(summary?["mode"] == mode)
        #expect(summary?["close"] == "CLOSED")
        #expect(summary?["transaction_id"]?.hasPrefix("42000") == true)
    }
}

/// wechatpayv3 2.0.4's complaint and upload methods against the v3 sandbox, unmodified
/// (`scripts/interop/wechatpayv3_complaints.py`): notification URL, list, detail, history, image
/// download, `complaint_image_upload` and `image_upload` (a bare `multipart/form-data` header,
/// the signature over meta only), answer, refund approval, complete, and `callback()` on every
/// complaint notification.
@Suite struct WeChatPayV3ComplaintInteropTests {
    @Test(.timeLimit(.minutes(3))) func wechatpayv3sComplaintMethodsAgainstTheSandbox() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let merchantKey = TestKeys.rsa(0)
        let apiV3Key = "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb"
        let merchant = WeChatV3Sandbox.Merchant(
            mchID: "1900000109", certificateSerial: "444F4864EA9B34415B5C0CC7FB3C6C0B1A2F3E4D", publicKey: merchantKey.publicKey,
            apiV3Key: apiV3Key)
        let sandbox = SandboxServer(wechatMerchants: [], wechatV3Merchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let config: [String: String] = [
            "gateway": sandbox.wechatV3URL.absoluteString, "sandbox": sandbox.baseURL.absoluteString, "mchid": merchant.mchID,
            "serial": merchant.certificateSerial, "private_key": merchantKey.pemRepresentation, "apiv3_key": apiV3Key,
            "appid": "wxd678efh567hg6787", "platform_cert": sandbox.wechatV3.platformCertificate.pemRepresentation,
            "prefix": "V3CMP\(Int(Date().timeIntervalSince1970))",
        ]
        let script = packageRoot.appendingPathComponent("scripts/interop/wechatpayv3_complaints.py").path
        let result = try await runSubprocess(python, [script], stdin: JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        #expect(result.status == 0, "wechatpayv3 complaint interop failed:\n\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(summary?["state"] == "PROCESSED")
        #expect(summary?["complaint_id"]?.hasPrefix("2002") == true)
    }
}

/// wechatpayv3 2.0.4's merchant transfer methods against the v3 sandbox, unmodified
/// (`scripts/interop/wechatpayv3_transfers.py`): `mch_transfer_bills` (its name encrypted with the
/// platform certificate, sent with its `Wechatpay-Serial`), the same bill sent again, both
/// queries, the payee's confirmation, `callback()` on `MCHTRANSFER.BILL.FINISHED`, and a cancel.
@Suite struct WeChatPayV3TransferInteropTests {
    @Test(.timeLimit(.minutes(3))) func wechatpayv3sTransferMethodsAgainstTheSandbox() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let merchantKey = TestKeys.rsa(0)
        let apiV3Key = "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb"
        let merchant = WeChatV3Sandbox.Merchant(
            mchID: "1900000109", certificateSerial: "444F4864EA9B34415B5C0CC7FB3C6C0B1A2F3E4D", publicKey: merchantKey.publicKey,
            apiV3Key: apiV3Key)
        let sandbox = SandboxServer(wechatMerchants: [], wechatV3Merchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let config: [String: String] = [
            "gateway": sandbox.wechatV3URL.absoluteString, "sandbox": sandbox.baseURL.absoluteString, "mchid": merchant.mchID,
            "serial": merchant.certificateSerial, "private_key": merchantKey.pemRepresentation, "apiv3_key": apiV3Key,
            "appid": "wxd678efh567hg6787", "platform_cert": sandbox.wechatV3.platformCertificate.pemRepresentation,
            "prefix": "V3TR\(Int(Date().timeIntervalSince1970))",
        ]
        let script = packageRoot.appendingPathComponent("scripts/interop/wechatpayv3_transfers.py").path
        let result = try await runSubprocess(python, [script], stdin: JSONSerialization.data(withJSONObject: config))
        let bills = await sandbox.wechatV3.transferBills()
        await sandbox.stop()
        #expect(result.status == 0, "wechatpayv3 transfer interop failed:\n\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(summary?["state"] == "SUCCESS")
        #expect(bills.map(\.state) == ["SUCCESS", "CANCELLED"] && bills.first?.user_name == "张三")
    }
}

/// wechatpayv3 2.0.4's profit-sharing methods against the v3 sandbox, unmodified
/// (`scripts/interop/wechatpayv3_profitsharing.py`): `profitsharing_add_receiver` (the name
/// encrypted with the platform certificate, sent with its `Wechatpay-Serial`), `…_delete_receiver`,
/// a trade paid with `settle_info.profit_sharing`, `profitsharing_order` and `…_order_query`,
/// a share past 30 % refused, `profitsharing_return` and `…_return_query` (its `?&out_order_no=`
/// path), `profitsharing_unfreeze` and `profitsharing_amount_query`; `profitsharing_bill` and
/// `download_bill` (the file's SHA1 and lines checked by the script).
@Suite struct WeChatPayV3ProfitSharingInteropTests {
    @Test(.timeLimit(.minutes(3))) func wechatpayv3sProfitSharingMethodsAgainstTheSandbox() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let merchantKey = TestKeys.rsa(0)
        let apiV3Key = "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb"
        let merchant = WeChatV3Sandbox.Merchant(
            mchID: "1900000109", certificateSerial: "444F4864EA9B34415B5C0CC7FB3C6C0B1A2F3E4D", publicKey: merchantKey.publicKey,
            apiV3Key: apiV3Key)
        let sandbox = SandboxServer(wechatMerchants: [], wechatV3Merchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        await sandbox.wechatV3.setProfitSharingDelay(0)  // a request finishes at the next call
        let config: [String: String] = [
            "gateway": sandbox.wechatV3URL.absoluteString, "sandbox": sandbox.baseURL.absoluteString, "mchid": merchant.mchID,
            "serial": merchant.certificateSerial, "private_key": merchantKey.pemRepresentation, "apiv3_key": apiV3Key,
            "appid": "wxd678efh567hg6787", "platform_cert": sandbox.wechatV3.platformCertificate.pemRepresentation,
            "prefix": "V3PS\(Int(Date().timeIntervalSince1970))",
        ]
        let script = packageRoot.appendingPathComponent("scripts/interop/wechatpayv3_profitsharing.py").path
        let result = try await runSubprocess(python, [script], stdin: JSONSerialization.data(withJSONObject: config))
        let receivers = await sandbox.wechatV3.profitSharingReceivers()
        let orders = await sandbox.wechatV3.profitSharingOrders()
        await sandbox.stop()
        #expect(result.status == 0, "wechatpayv3 profit-sharing interop failed:\n\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(summary?["state"] == "FINISHED" && summary?["return"] == "SUCCESS" && summary?["unsplit"] == "0")
        #expect(summary?["bill"] == "4")
        #expect(receivers.first { $0.type == "MERCHANT_ID" }?.name == "深圳市示例科技有限公司")
        #expect(orders.map(\.unfreeze) == [false, true] && orders.first?.receivers.map(\.amount) == [2000, 500])
    }
}

import CashierCrypto
import CashierSandbox
import ChildProcesses
import Foundation
import TestSupport
import Testing
import UnionPay

/// No installable UnionPay SDK implements 5.1.0 correctly (see the research note), so an
/// independent reference client, written from the published rules with Python's `cryptography`
/// (scripts/interop/unionpay_reference.py), runs the whole cycle against the sandbox: it signs
/// consume, query, refund and file-download requests the sandbox must accept, parses the raw
/// answers and verifies them and the back notifications (chain, owner, signature), and reads the
/// reconciliation file with the demo's widths. Its signature of a fixed request must be the
/// Swift library's, byte for byte.
@Suite struct UnionPayReferenceInteropTests {
    @Test(.timeLimit(.minutes(3))) func theReferenceClientRunsTheCycleAgainstTheSandbox() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let sandbox = SandboxServer(wechatMerchants: [], timeScale: 0.001)
        try sandbox.start()
        let vector = [
            "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000201", "channelType": "08", "accessType": "0",
            "merId": sandbox.unionpay.ca.merchantID, "orderId": "C20261206143000A1", "txnTime": "20261206143000", "txnAmt": "1200",
            "currencyCode": "156", "backUrl": "https://pay.example.com/notify?a=b+c/d", "orderDesc": "两杯拿铁", "reqReserved": "{k=v&n=1}",
            "frontUrl": "",
        ]
        var config: [String: Any] = sandbox.unionpayReadyFileEntries.reduce(into: [:]) { config, entry in
            config[String(entry.key.dropFirst("unionpay_".count))] = entry.value
        }
        config["gateway"] = config.removeValue(forKey: "gateway_url")
        config["payer"] = sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString
        config["prefix"] = "PY\(Int(Date().timeIntervalSince1970))"
        config["vector"] = vector
        let script = packageRoot.appendingPathComponent("scripts/interop/unionpay_reference.py").path
        let result = try await runSubprocess(python, [script], stdin: try JSONSerialization.data(withJSONObject: config))
        await sandbox.stop()
        try #require(result.status == 0, "unionpay_reference.py failed:\n\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])

        #expect(summary["tn"]?.count == 21 && summary["pay_result"] == "success")
        #expect(summary["notification"] == "verified" && summary["query"] == "00" && summary["refund"] == "00")
        #expect(summary["refund_notification"]?.hasSuffix("R1") == true)
        #expect(summary["duplicate"] == "12" && summary["query_before_payment"] == "34" && summary["over_refund"] == "36")
        // The reference refuses what must be refused: a tampered answer, another root, a clock past the certificates.
        #expect(summary["tampered_answer"] == "refused" && summary["wrong_root"] == "refused" && summary["expired_clock"] == "refused")
        // The answer is raw: URL-decoding it first breaks its signature (its '+' and '/').
        #expect(summary["url_decoded_answer"] == "refused")
        #expect(summary["file_lines"] == "2" && summary["file_summary"] == "gbk" && summary["file_name"]?.hasSuffix(".zip") == true)

        // Known answer: the reference's signature of the fixed request is the library's.
        let ca = sandbox.unionpay.ca
        let key = try UnionPay.SigningKey(privateKey: ca.merchantKey, certificate: ca.merchantCertificate)
        let ours = try UnionPay.Signer(key: key).sign(vector)
        #expect(summary["vector_cert_id"] == key.certID)
        #expect(summary["vector_signature"] == ours["signature"])
    }

    /// The same reference, driving `cashier-sandbox serve` through the merchant API alone
    /// (scripts/interop/unionpay_through_cashier.py): the seed's request paid with
    /// `unionpay.applepay`, then checked at UnionPay by the reference itself — the consume under the
    /// payment's trade number and a Beijing `txnTime`, its fen, `origRespCode` 00 under the
    /// `queryId` the API shows; the refund a `04` naming it; the reconciliation file's two lines.
    @Test(.timeLimit(.minutes(3))) func theReferenceChecksWhatCashierSandboxServeDidAtUnionPay() async throws {
        let binary = packageRoot.appendingPathComponent(".build/debug/cashier-sandbox")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the cashier-sandbox executable first (swift build)")
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let folder = Scratch.url("unionpay-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let process = try ChildProcess(
            binary.path, ["serve", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path],
            stdout: .null)
        defer { process.stopForGood() }
        let urls = try #require(try await readyFile(ready))
        var config: [String: String] = [:]
        for (key, value) in urls {
            config[key.hasPrefix("unionpay_") ? String(key.dropFirst("unionpay_".count)) : key] = value
        }
        let script = packageRoot.appendingPathComponent("scripts/interop/unionpay_through_cashier.py").path
        let result = try await runSubprocess(python, [script], stdin: try JSONSerialization.data(withJSONObject: config))
        try #require(result.status == 0, "unionpay_through_cashier.py failed:\n\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
        #expect(summary["mode"] == "01" && summary["before_payment"] == "34" && summary["consume"] == "00")
        #expect(summary["query_id_matches"] == "yes" && summary["refund"] == "04" && summary["file"] == "both lines")
        #expect(summary["reconciliation"] == "no discrepancies")
    }
}

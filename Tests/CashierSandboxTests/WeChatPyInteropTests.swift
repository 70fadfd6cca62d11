import CashierSandbox
import Foundation
import Testing
import WeChatPay

/// wechatpy 1.8.18 (from PyPI, in the project's .venv) against the v2 sandbox: it places,
/// queries, closes and refunds orders, and its `parse_payment_result` accepts the sandbox's
/// notification.
@Suite struct WeChatPyInteropTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { url.deleteLastPathComponent() }
        return url
    }()

    static func run(_ executable: String, _ arguments: [String], stdin: Data = Data()) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test(.timeLimit(.minutes(3)))
    func wechatpyAgainstTheV2Sandbox() async throws {
        let environment = try Self.run(Self.root.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.0 == 0, "scripts/python-env failed: \(environment.2)")
        let python = environment.1.trimmingCharacters(in: .whitespacesAndNewlines)

        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")
        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        defer { sandbox.stop() }
        let config: [String: String] = [
            "gateway": sandbox.wechatV2URL.absoluteString, "payer": sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString,
            "appid": merchant.appID, "mch_id": merchant.mchID, "api_key": merchant.apiKey,
            "prefix": "PY\(Int(Date().timeIntervalSince1970))",
        ]
        let script = Self.root.appendingPathComponent("scripts/interop/wechatpy_v2.py").path
        let result = try await Task.detached { try Self.run(python, [script], stdin: JSONSerialization.data(withJSONObject: config)) }.value
        #expect(result.0 == 0, "wechatpy interop failed:\n\(result.2)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.1.utf8)) as? [String: String]
        #expect(summary?["close"] == "CLOSED")
        #expect(summary?["wrong_key"] == "refused")
        #expect(summary?["notification"]?.hasPrefix("42000") == true)
    }
}

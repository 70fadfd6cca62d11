import Alipay
import ApplePay
import Cashier
import CashierCrypto
import ChildProcesses
import Foundation
import TestSupport
import Testing
import WeChatPay

/// `cashier-sandbox gateways` as a user runs it: a separate process, a ready file, SIGTERM to stop.
@Suite struct SandboxCommandTests {
    static let binary = packageRoot.appendingPathComponent(".build/debug/cashier")
    static let sandboxBinary = packageRoot.appendingPathComponent(".build/debug/cashier-sandbox")

    /// A fresh folder for one run's files, once the executables are known to be built.
    static func scratchFolder() throws -> URL {
        for binary in [binary, sandboxBinary] {
            try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the executables first (swift build)")
        }
        let folder = Scratch.url("cashier-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(.timeLimit(.minutes(3)))
    func runsUntilTerminated() async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let v3Key = TestKeys.rsa(0)
        let arguments = [
            "gateways", "--ready-file", ready.path, "--time-scale", "0.001", "--wechat-v3-mchid", "1230000109", "--wechat-v3-serial", "ABC",
            "--wechat-v3-public-key", v3Key.publicKey.pemRepresentation, "--wechat-api-v3-key-file",
            CapturedIO.secretFile("0123456789abcdefABCDEF0123456789"),
            "--alipay-app-id", "2021000000000009", "--alipay-app-public-key", Base64.encode(v3Key.publicKey.derRepresentation),
        ]
        let output = Pipe()
        let process = try ChildProcess(Self.sandboxBinary.path, arguments, stdout: .pipe(output))
        defer { process.stopForGood() }

        let urls = try await readyFile(ready)
        let gateway = try #require(urls?["wechat_v2_url"].flatMap(URL.init(string:)))
        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")
        let client = WeChatPay.V2.Client(merchant: merchant, baseURL: gateway)
        let number = TradeNumber.generate()
        _ = try await client.unifiedOrder(
            .init(
                tradeType: .native, body: "cli", outTradeNo: number, total: Money(minorUnits: 1, currency: .cny),
                notifyURL: "http://127.0.0.1:9/n",
                clientIP: "127.0.0.1", productID: "p"))
        #expect(try await client.orderQuery(outTradeNo: number).tradeState == "NOTPAY")
        let v3URL = try #require(urls?["wechat_v3_url"].flatMap(URL.init(string:)))
        let v3 = WeChatPay.V3.Client(
            merchant: try .init(
                mchID: "1230000109", certificateSerial: "ABC", privateKey: v3Key, apiV3Key: "0123456789abcdefABCDEF0123456789"),
            keys: .init(), baseURL: v3URL)
        let v3Prepay = try await v3.prepay(
            .native, appID: "wx1", description: "cli", outTradeNo: TradeNumber.generate(), total: Money(minorUnits: 1, currency: .cny),
            notifyURL: "http://127.0.0.1:9/n")
        #expect(v3Prepay.codeURL != nil)
        let alipay = Alipay.Client(
            appID: "2021000000000009", signer: Alipay.Signer(privateKey: v3Key),
            alipayPublicKey: try RSAPublicKey(pemRepresentation: try #require(urls?["alipay_public_key"])),
            gateway: try #require(urls?["alipay_gateway_url"].flatMap(URL.init(string:))))
        let missing = await #expect(throws: PaymentError.self) { try await alipay.query(outTradeNo: "NONE") }
        #expect(missing?.providerCode == "ACQ.TRADE_NOT_EXIST")
        // Apple Pay through the sandbox's Stripe: a minted token, authorised by Cashier's Stripe processor.
        let minted = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: try #require(urls?["applepay_token_url"].flatMap(URL.init(string:))),
                body: Data(#"{"amount":"12.75","currency":"USD"}"#.utf8)))
        let stripe = ApplePay.StripeProcessor(
            secretKey: "sk_test_cli", baseURL: try #require(urls?["stripe_api_base"].flatMap(URL.init(string:))))
        let decision = try await stripe.authorize(
            ApplePay.ProcessorAuthorization(
                amount: Money(minorUnits: 1275, currency: .usd), reference: "cli", idempotencyKey: "cli",
                token: try ApplePay.PaymentToken(json: minted.body)))
        #expect({ if case .authorized = decision { true } else { false } }(), "\(decision)")
        // Adyen's webhooks are set up where the banner says (a key that is not hex is refused).
        let sandboxURL = try #require(urls?["sandbox_url"])
        for (key, expected) in [("not hex", 400), ("44782DEF547AAA06C910C43932B1EB0C", 200)] {
            let answer = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: try #require(URL(string: sandboxURL + "sandbox/adyen/webhook")),
                    body: try JSONSerialization.data(withJSONObject: ["url": "http://127.0.0.1:9/notify/adyen", "hmac_key": key])))
            #expect(answer.status == expected, "\(key)")
        }

        process.terminate()  // SIGTERM
        let status = try await onOwnThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0)
        let printed = try await onOwnThread { String(decoding: try output.fileHandleForReading.readToEndRetrying(), as: UTF8.self) }
        #expect(printed.contains("WeChat Pay v2 gateway  http://127.0.0.1:"))
        #expect(printed.contains("Adyen webhooks         POST http://127.0.0.1:"))
        #expect(printed.contains("Stripe webhooks        POST http://127.0.0.1:"))
        #expect(printed.contains("sandbox stopped"))
    }

    /// With CASHIER_EXIT_WITH_PARENT=1 the sandbox stops when the process that started it has
    /// gone (here a shell that exits after starting it in the background).
    @Test(.timeLimit(.minutes(3)))
    func stopsWhenItsParentGoes() async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let log = folder.appendingPathComponent("sandbox.log")
        let script = """
            CASHIER_EXIT_WITH_PARENT=1 '\(Self.sandboxBinary.path)' gateways --ready-file '\(ready.path)' > '\(log.path)' 2>&1 &
            echo $!
            while [ ! -s '\(ready.path)' ]; do sleep 0.05; done
            """
        let shell = try await runSubprocess("/bin/sh", ["-c", script])
        let pid = try #require(pid_t(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGKILL) }
        // The shell has exited; the sandbox notices within a fraction of a second and stops cleanly.
        let stopped = await eventually(timeout: .seconds(15), interval: .milliseconds(50)) {
            (try? String(contentsOf: log, encoding: .utf8))?.contains("sandbox stopped") == true
        }
        #expect(stopped, "the orphaned sandbox kept running")
    }
}

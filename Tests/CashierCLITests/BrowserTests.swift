import ChildProcesses
import Foundation
import TestSupport
import Testing

/// The dashboard and the sandbox's payer pages in Debian's chromium, driven by Selenium (PyPI, in
/// .venv) through Debian's chromedriver, against `cashier serve --sandbox`: sign in, search,
/// refund and watch the timeline; a stored XSS attempt stays text; a form without its CSRF token
/// is refused; the Native page's QR code, read back from the screen, says `code_url`; Alipay wap,
/// WeChat H5 and the Apple Pay checkout pay and return; the overview's figures and chart add up
/// to what was paid and refunded; payments and refunds are listed and found; a payment taken
/// twice is refunded in one click; the CSV export reads back as the orders; webhooks that failed
/// while the merchant's endpoint was down are re-sent once it is back. Screenshots land in
/// `.build/test-output/screenshots` (the README shows them).
///
/// And the hosted checkout page as payers on a desktop, a phone, in WeChat's browser and in
/// Safari see it (scripts/test/checkout_pages.py). One browser at a time: two chromiums on two
/// cores starve each other's timers.
@Suite(.serialized) struct BrowserTests {
    static let browsers = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
    static let installed = browsers.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// The virtualenv's python, a scratch folder (the caller removes it) and where screenshots go.
    static func setUp(_ name: String) async throws -> (python: String, folder: URL, screenshots: URL) {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let folder = Scratch.url("cashier-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let screenshots = packageRoot.appendingPathComponent(".build/test-output/screenshots")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        return (environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines), folder, screenshots)
    }

    @Test(.enabled(if: installed, "chromium and chromium-driver are not installed (scripts/install-deps)"), .timeLimit(.minutes(4)))
    func dashboardAndPayerPagesWorkInARealBrowser() async throws {
        let (python, folder, screenshots) = try await Self.setUp("browser")
        defer { try? FileManager.default.removeItem(at: folder) }

        // The merchant's webhook endpoint, down until the script brings it back.
        let receiver = try WebhookReceiver(failures: 0, down: true)
        let ready = folder.appendingPathComponent("ready.json")
        let server = try ChildProcess(
            SandboxCommandTests.sandboxBinary.path,
            [
                "serve", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path, "--webhook-url",
                receiver.url.absoluteString,
            ],
            stdout: .null)
        defer { server.stopForGood() }
        let urls = try #require(try await readyFile(ready))
        let result = try await runSubprocess(
            python,
            [
                packageRoot.appendingPathComponent("scripts/test/browser_pages.py").path, try #require(urls["api_url"]),
                try #require(urls["sandbox_url"]), try #require(urls["secret_key"]), try #require(urls["publishable_key"]),
                screenshots.path, "http://127.0.0.1:\(receiver.server.port)", folder.path,
            ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("0 failed"))
        let taken = try FileManager.default.contentsOfDirectory(atPath: screenshots.path).filter { $0.hasSuffix(".png") }
        #expect(taken.count >= 15, "\(taken)")
        await receiver.server.stop()
    }

    @Test(.enabled(if: installed, "chromium and chromium-driver are not installed (scripts/install-deps)"), .timeLimit(.minutes(4)))
    func checkoutPagesWorkOnEveryDevice() async throws {
        let (python, folder, screenshots) = try await Self.setUp("checkout")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let server = try ChildProcess(
            SandboxCommandTests.sandboxBinary.path,
            ["serve", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path], stdout: .null)
        defer { server.stopForGood() }
        let urls = try #require(try await readyFile(ready))
        let result = try await runSubprocess(
            python,
            [
                packageRoot.appendingPathComponent("scripts/test/checkout_pages.py").path, try #require(urls["api_url"]),
                try #require(urls["sandbox_url"]), try #require(urls["secret_key"]), screenshots.path,
            ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("0 failed") && !result.stdout.contains("FAIL"))
        for name in ["checkout-desktop", "checkout-desktop-qr", "checkout-mobile", "checkout-mobile-cancelled", "checkout-wechat"] {
            #expect(FileManager.default.fileExists(atPath: screenshots.appendingPathComponent(name + ".png").path), "\(name)")
        }
    }
}

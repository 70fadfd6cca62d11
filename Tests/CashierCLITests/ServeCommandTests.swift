import Cashier
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// `cashier-sandbox serve` as a user runs it: a separate process, a ready file, an order paid
/// through the sandbox's payer API, SIGTERM to stop; the order survives in the database. And
/// `cashier serve --config`'s refusals.
@Suite struct ServeCommandTests {
    @Test(.timeLimit(.minutes(3)))
    func sandboxModeTakesAnOrderToPaid() async throws {
        let binary = SandboxCommandTests.binary
        let sandboxBinary = SandboxCommandTests.sandboxBinary
        for binary in [binary, sandboxBinary] {
            try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the executables first (swift build)")
        }
        let folder = Scratch.url("cashier-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let output = Pipe()
        let log = Pipe()
        let process = try ChildProcess(
            sandboxBinary.path,
            ["serve", "--access-log", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path],
            stdout: .pipe(output), stderr: .pipe(log))
        defer { process.stopForGood() }
        let urls = try await readyFile(ready)
        let api = try #require(urls?["api_url"])
        let sandbox = try #require(urls?["sandbox_url"])
        let secret = try #require(urls?["secret_key"])
        #expect(secret.hasPrefix("sk_") && urls?["publishable_key"]?.hasPrefix("pk_") == true)
        // The ready file holds the secret key, and the database the orders: their owner's alone.
        func mode(_ url: URL) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(ready) == 0o600)
        #expect(try mode(folder.appendingPathComponent("cashier.db")) == 0o600)

        let (order, qr) = try await Self.paidInSandbox(api: api, sandbox: sandbox, secret: secret)
        let id = try #require(order["id"] as? String)
        #expect((qr["code_url"] as? String)?.hasPrefix("weixin://") == true)
        let paidHere = try await eventually {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(secret)")
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: "GET", url: URL(string: api + "/v1/orders/\(id)")!, headers: headers))
            return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["status"] as? String == "paid"
        }
        #expect(paidHere)
        // The day reconciles through the running server; the secret key travels in the environment.
        let today = BeijingTime.formatter("yyyy-MM-dd").string(from: Date())
        let reconciled = try await runSubprocess(
            binary.path, ["reconcile", "--date", today, "--api-url", api], environment: ["CASHIER_SECRET_KEY": secret])
        #expect(
            reconciled.status == 0 && reconciled.stdout.contains("matched: 1   discrepancies: 0"),
            "\(reconciled.stdout)\(reconciled.stderr)")
        let unkeyed = try await runSubprocess(binary.path, ["reconcile", "--date", today, "--api-url", api])
        #expect(unkeyed.status == 2 && unkeyed.stderr.contains("CASHIER_SECRET_KEY"))
        process.terminate()  // SIGTERM: the server stops cleanly
        let exit = try await onOwnThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(exit == 0)
        // Stopped cleanly, the store is closed: its WAL copied back into the file and deleted.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.contains("cashier.db") && !left.contains("cashier.db-wal") && !left.contains("cashier.db-shm"), "\(left)")
        // The access log has every request and nothing secret: no keys, no query, no bodies.
        let logged = try await onOwnThread { String(decoding: try log.fileHandleForReading.readToEndRetrying(), as: UTF8.self) }
        #expect(logged.contains(#""path":"/v1/orders""#) && logged.contains(#""status":201"#))
        // Each line's time is a number that can itself read 12.75…: left out of the search.
        let scrubbed = logged.replacingOccurrences(of: #""ms":[0-9.]+"#, with: #""ms":0"#, options: .regularExpression)
        #expect(
            !scrubbed.contains(secret) && !scrubbed.contains("client_secret") && !scrubbed.contains("12.75")
                && !scrubbed.contains("Bearer"))
        // Sandbox mode prints each order's checkout page on standard output.
        let printed = try await onOwnThread { String(decoding: try output.fileHandleForReading.readToEndRetrying(), as: UTF8.self) }
        let link = try #require(order["checkout_url"] as? String)
        #expect(
            link.hasPrefix(api + "/c/\(id)_secret_") && printed.contains("order \(id)  12.75 CNY  checkout \(link)"), "\(printed)")
    }

    /// An order of 12.75 CNY made through `api` with `secret`, its WeChat Native payment started,
    /// and the sandbox's payer (at `sandbox`) paying it. - Returns: the order and the payment's answer.
    static func paidInSandbox(api: String, sandbox: String, secret: String) async throws -> (
        order: [String: Any], payment: [String: Any]
    ) {
        let order = try await post(api + "/v1/orders", ["items": [["label": "Latte", "amount": "12.75"]], "currency": "CNY"], key: secret)
        let id = try #require(order["id"] as? String)
        let payment = try await post(api + "/v1/orders/\(id)/payments", ["method": "wechat.native"], key: secret)
        let paid = try await post(
            sandbox + "sandbox/pay", ["provider": "wechat", "out_trade_no": order["out_trade_no"] as? String ?? "", "outcome": "success"])
        #expect(paid["trade_state"] as? String == "SUCCESS")
        return (order, payment)
    }

    /// POSTs `object` as JSON (with the secret `key`, when given); the answer's JSON object.
    static func post(_ url: String, _ object: Any, key: String? = nil) async throws -> [String: Any] {
        var headers = HTTPHeaders()
        if let key { headers.add("Authorization", "Bearer \(key)") }
        let response = try await URLSessionTransport().send(
            HTTPRequest(method: "POST", url: URL(string: url)!, headers: headers, body: try JSONSerialization.data(withJSONObject: object)))
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    /// A ready file that cannot be written. Its folder missing: refused before anything starts.
    /// The write itself failing once the servers are up: they are stopped first, and the command
    /// exits 1 with the reason. (It used to throw past them: `serve` then died of signal 11 as the
    /// process exited under their threads, and both printed a bare `NSPOSIXErrorDomain Code=…`.)
    @Test(.timeLimit(.minutes(2)))
    func aReadyFileThatCannotBeWrittenStopsCleanly() async throws {
        let binary = SandboxCommandTests.binary.path
        let sandboxBinary = SandboxCommandTests.sandboxBinary.path
        let folder = try SandboxCommandTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("cashier.db").path
        let nowhere = "/nonexistent-\(UUID().uuidString)"
        for (binary, arguments) in [
            (sandboxBinary, ["serve", "--db", database]), (sandboxBinary, ["gateways"]), (binary, ["serve", "--config", "/dev/null"]),
        ] {
            let missing = try await runSubprocess(binary, arguments + ["--ready-file", nowhere + "/ready.json"])
            #expect(
                missing.status == 2 && missing.stdout.isEmpty
                    && missing.stderr.contains(
                        "--ready-file: \(nowhere)/ready.json cannot be written: the folder \(nowhere) does not exist"),
                "\(arguments): \(missing.status) \(missing.stderr)")
        }
        // A name the check passes but the write cannot take: the temporary file beside it adds 13
        // characters to these 250, past the 255 a name may have.
        let long = folder.appendingPathComponent(String(repeating: "r", count: 250)).path
        // Several times over: the process used to die of signal 11 in about one exit in ten, when
        // `exit` ran OpenSSL's clean-up under a thread still inside it.
        let serve = ["serve", "--db", database]
        for arguments in Array(repeating: serve, count: 8) + [["gateways"], ["gateways"]] {
            let failed = try await runSubprocess(sandboxBinary, arguments + ["--ready-file", long])
            #expect(
                failed.status == 1 && failed.stderr.contains("--ready-file: cannot write \(long): File name too long")
                    && !failed.stderr.contains("crashed"), "\(arguments): \(failed.status) \(failed.stderr)")
        }
        // In this process: the ports the banner printed are closed by the time the command returns.
        let inProcess = await CapturedIO.runSandbox(["serve", "--db", database, "--ready-file", long])
        let ports = inProcess.stdout.split(separator: "\n").compactMap { line -> UInt16? in
            guard line.hasPrefix("merchant API") || line.hasPrefix("sandbox "),
                let port = line.split(separator: "127.0.0.1:").last?.prefix(while: \.isNumber)
            else { return nil }
            return UInt16(port)
        }
        #expect(inProcess.status == 1 && ports.count == 2, "\(inProcess.stdout) \(inProcess.stderr)")
        for port in ports { #expect((try? RawHTTPConnection(port: port)) == nil, "port \(port) still accepts connections") }
    }

    @Test func aBadConfigurationIsRefusedWithItsField() async throws {
        let missing = await CapturedIO.run(["serve", "--config", "/nonexistent/cashier.json"])
        #expect(
            missing.status == 2
                && missing.stderr.contains("config: /nonexistent/cashier.json: does not exist, nor does the folder /nonexistent"),
            "\(missing.stderr)")
        let file = Scratch.url("cashier-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        // Where the JSON breaks, and the file named in each option's own words.
        try Data("{\n  \"database\": \"cashier.db\",\n  \"wechat\": \n".utf8).write(to: file)
        let broken = await CapturedIO.run(["serve", "--config", file.path])
        #expect(broken.status == 2 && broken.stderr.contains("\(file.path): is not valid JSON: "), "\(broken.stderr)")
        let keys = await CapturedIO.run(["keys", "list", "--config", file.path])
        #expect(keys.status == 2 && keys.stderr.contains("config: \(file.path): is not valid JSON: "), "\(keys.stderr)")
        let folder = await CapturedIO.runSandbox(["serve", "--catalog", Scratch.folder.path])
        #expect(
            folder.status == 2 && folder.stderr.contains("--catalog: \(Scratch.folder.path) is a folder, not a file"), "\(folder.stderr)")
        try Data(#"{"secret_key":"sk_inline_is_refused_000000000"}"#.utf8).write(to: file)
        let inline = await CapturedIO.run(["serve", "--config", file.path])
        #expect(inline.status == 2 && inline.stderr.contains("secret_key: secrets are not written in the file"))
        // The sandbox processor authorises without moving money: with real credentials it does not start.
        let keyFile = Scratch.url("cashier-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: keyFile) }
        try Data(("sk_" + String(repeating: "s", count: 32)).utf8).write(to: keyFile)
        let config: [String: Any] = [
            "secret_key_file": keyFile.path, "publishable_key": "pk_live_x", "public_base_url": "https://pay.example.com",
            "applepay": [
                "merchant_identifier": "merchant.com.example", "country_code": "US", "display_name": "Example",
                "supported_networks": ["visa"], "processor": "sandbox",
            ],
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: file)
        let sandboxed = await CapturedIO.run(["serve", "--config", file.path])
        #expect(sandboxed.status == 2, "\(sandboxed.stderr)")
        #expect(sandboxed.stderr.contains("applepay.processor") && sandboxed.stderr.contains("only in sandbox mode"))
        #expect(sandboxed.stderr.contains("\"stripe\"") && sandboxed.stderr.contains("\"adyen\""))
        // A misspelt section is refused before anything starts, not run without it.
        var misspelt = config
        misspelt["applepay"] = nil
        misspelt["webhok"] = ["url": "https://shop.example.com/hooks", "secret_env": "HOOK_SECRET"]
        try JSONSerialization.data(withJSONObject: misspelt).write(to: file)
        let typo = await CapturedIO.run(["serve", "--config", file.path])
        #expect(typo.status == 2 && typo.stdout.isEmpty, "\(typo.stdout) \(typo.stderr)")
        #expect(typo.stderr.contains("config: webhok: is not a setting: did you mean webhook?"), "\(typo.stderr)")
    }
}

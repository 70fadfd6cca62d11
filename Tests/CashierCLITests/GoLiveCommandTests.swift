import Cashier
import CashierCrypto
import CashierSandboxMode
import CashierServer
import CashierStore
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// The going-live commands as a merchant runs them: `cashier serve` reloading on SIGHUP (a bad
/// file refused, the WeChat Pay key rotated), logging JSON lines with request ids and what the
/// doctor found at start; `cashier doctor`'s exit statuses and JSON; `cashier backup` and
/// `cashier restore` against a store that is open.
@Suite struct GoLiveCommandTests {
    /// A configuration file for the in-process sandbox's merchant (WeChat Pay v3 and Alipay), its keys 0600 beside it.
    struct Files {
        let folder: URL
        var config: [String: Any]
        var file: URL { folder.appendingPathComponent("cashier.json") }

        init(mode: SandboxMode) throws {
            folder = try Scratch.newFolder("golive-cli")
            let configuration = mode.configuration
            guard let v3 = configuration.wechatV3 else { throw CocoaError(.featureUnsupported) }
            config = [
                "public_base_url": "https://pay.example.com", "publishable_key": configuration.publishableKey,
                "secret_key_file": "secret_key", "database": folder.appendingPathComponent("cashier.db").path,
                "wechat_v3": [
                    "appid": v3.appID, "mch_id": v3.merchant.mchID, "certificate_serial": v3.merchant.certificateSerial,
                    "private_key_file": "apiclient_key.pem", "api_v3_key_file": "api_v3_key",
                    "base_url": mode.sandbox.wechatV3URL.absoluteString,
                ],
                "jobs": ["query_interval_seconds": 3600],
            ]
            try key("secret_key", configuration.secretKey)
            try key("apiclient_key.pem", v3.merchant.privateKey.pemRepresentation)
            try key("api_v3_key", v3.merchant.apiV3Key)
            try write()
        }

        func key(_ name: String, _ text: String, mode: Int = 0o600) throws {
            let url = folder.appendingPathComponent(name)
            try? FileManager.default.removeItem(at: url)
            try Data(text.utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        }

        func write() throws {
            try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: file, options: .atomic)
        }
    }

    static func call(_ base: String, _ method: String, _ path: String, key: String, id: String? = nil, _ body: [String: Any]? = nil)
        async throws -> (status: Int, object: [String: Any], headers: HTTPHeaders)
    {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(key)")
        if let id { headers.add("X-Request-Id", id) }
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: method, url: URL(string: base + path)!, headers: headers,
                body: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(), timeout: .seconds(60)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:], response.headers)
    }

    /// An order and its WeChat Pay v3 Native payment through `base`. - Returns: both statuses.
    static func orderAndPay(_ base: String, key: String, id: String) async throws -> [Int] {
        let order = try await call(
            base, "POST", "/v1/orders", key: key, id: id, ["items": [["label": "Tea", "amount": "3.00"]], "currency": "CNY"])
        let paid = try await call(
            base, "POST", "/v1/orders/\(order.object["id"] as? String ?? "")/payments", key: key, id: id + "-pay",
            ["method": "wechat.native", "api": "v3"])
        return [order.status, paid.status]
    }

    @Test(.timeLimit(.minutes(3)))
    func serveReloadsOnSIGHUPRefusingABadFileAndRotatingTheWeChatKey() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: SandboxCommandTests.binary.path), "build the executables first")
        let mode = try await SandboxMode.start(timeScale: 0.001)
        var files = try Files(mode: mode)
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let secret = mode.configuration.secretKey
        let ready = files.folder.appendingPathComponent("ready.json")
        let pidFile = files.folder.appendingPathComponent("cashier.pid")
        let logURL = files.folder.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        let process = try ChildProcess(
            SandboxCommandTests.binary.path,
            [
                "serve", "--config", files.file.path, "--port", "0", "--ready-file", ready.path, "--pid-file", pidFile.path,
                "--log-format", "json", "--access-log",
            ],
            environment: ProcessInfo.processInfo.environment.merging(Scratch.childEnvironment) { $1 }, stdout: .null, stderr: .handle(log))
        defer { process.stopForGood() }
        let base = try #require(try await readyFile(ready)?["api_url"])
        func logged() -> String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

        // At start: what the doctor found (the sandbox's gateway is not WeChat Pay's), as JSON lines.
        #expect(logged().contains(#""event":"doctor_finding""#) && logged().contains("wechat_v3.base_url"), "\(logged())")
        #expect(
            try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                == String(process.processIdentifier))
        // The platform certificates are downloaded at start (the provider-keys job): once they are here,
        // the payment's answer verifies.
        #expect(
            await eventually { logged().contains(#"/v3/certificates","provider""#) && logged().contains(#""status":200"#) }, "\(logged())")
        // The request id given comes back, and names the request and its call to WeChat Pay in the log.
        let first = try await Self.call(
            base, "POST", "/v1/orders", key: secret, id: "trace-1", ["items": [["label": "Tea", "amount": "3.00"]], "currency": "CNY"])
        #expect(first.status == 201 && first.headers["X-Request-Id"] == "trace-1")
        let started = try await Self.call(
            base, "POST", "/v1/orders/\(first.object["id"] as? String ?? "")/payments", key: secret, id: "trace-2",
            ["method": "wechat.native", "api": "v3"])
        #expect(started.status == 201 || started.status == 200, "\(started.object)")
        let traced = await eventually {
            logged().split(separator: "\n").contains { $0.contains(#""event":"provider_call""#) && $0.contains(#""request_id":"trace-2""#) }
                && logged().contains(#""request_id":"trace-1""#)
        }
        #expect(traced, "\(logged())")
        let unsafe = try await Self.call(base, "GET", "/healthz", key: secret, id: "bad id\u{7f}")
        #expect(unsafe.headers["X-Request-Id"] == nil || unsafe.headers["X-Request-Id"]?.hasPrefix("req_") == true)

        // A key file that is not a key: refused, logged, and the running configuration serves on.
        try files.key("apiclient_key.pem", "not a key")
        let reloaded = try await runSubprocess(SandboxCommandTests.binary.path, ["reload", "--pid-file", pidFile.path])
        #expect(reloaded.status == 0, "\(reloaded.stderr)")
        #expect(await eventually { logged().contains(#""event":"config_reload_refused""#) }, "\(logged())")
        #expect(logged().contains("wechat_v3.private_key"))
        #expect(try await Self.orderAndPay(base, key: secret, id: "after-refusal").allSatisfy { (200..<300).contains($0) })

        // The WeChat Pay API certificate replaced: new key and serial, then SIGHUP, then the old one revoked.
        let v3 = try #require(mode.configuration.wechatV3)
        let newKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let newSerial = "7C3BEDC5E2A4C6F1D3B5A7C9E1F3A5B7C9D1E3F5"
        await mode.sandbox.wechatV3.addMerchantCertificate(mchID: v3.merchant.mchID, serial: newSerial, publicKey: newKey.publicKey)
        try files.key("apiclient_key.pem", newKey.pemRepresentation)
        var wechat = files.config["wechat_v3"] as? [String: Any] ?? [:]
        wechat["certificate_serial"] = newSerial
        files.config["wechat_v3"] = wechat
        try files.write()
        kill(process.processIdentifier, SIGHUP)
        #expect(await eventually { logged().contains(#""event":"config_reloaded""#) }, "\(logged())")
        await mode.sandbox.wechatV3.revokeMerchantCertificate(serial: v3.merchant.certificateSerial)
        #expect(try await Self.orderAndPay(base, key: secret, id: "after-rotation").allSatisfy { (200..<300).contains($0) }, "\(logged())")

        process.terminate()
        let exit = try await onOwnThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(exit == 0)
        #expect(!FileManager.default.fileExists(atPath: pidFile.path), "the pid file goes with the server")
        await mode.sandbox.stop()
    }

    @Test func doctorExitStatusesAndJSON() async throws {
        let folder = try Scratch.newFolder("doctor-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(await CapturedIO.run(["doctor"]).status == 2)
        #expect(await CapturedIO.run(["doctor", "--config", folder.appendingPathComponent("none.json").path]).status == 2)
        let secret = folder.appendingPathComponent("secret_key")
        try Data("sk_doctor_cli_0123456789abcdef".utf8).write(to: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        let config = folder.appendingPathComponent("cashier.json")
        try Data(
            #"{"public_base_url": "https://pay.example.com", "publishable_key": "pk_x", "secret_key_file": "secret_key", "database": "\#(folder.path)/cashier.db"}"#
                .utf8
        ).write(to: config)
        let clean = await CapturedIO.run(["doctor", "--config", config.path])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(clean.stdout.contains("clean: nothing to fix"))
        let json = await CapturedIO.run(["doctor", "--config", config.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["clean"] as? Bool == true)
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["check"] as? String == "config" && $0["status"] as? String == "ok" })

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret.path)
        let exposed = await CapturedIO.run(["doctor", "--config", config.path, "--json"])
        #expect(exposed.status == 1)
        let problems = try #require(
            (try JSONSerialization.jsonObject(with: Data(exposed.stdout.utf8)) as? [String: Any])?["findings"] as? [[String: Any]])
        let permission = try #require(problems.first { $0["check"] as? String == "files.permissions" })
        #expect(permission["status"] as? String == "problem" && (permission["fix"] as? String)?.contains("chmod 600") == true)
    }

    @Test func backupAndRestoreCommands() async throws {
        let folder = try Scratch.newFolder("backup-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("cashier.db").path
        let store = try SQLiteOrderStore(path: database)
        try await store.migrate()
        _ = try await store.create(
            NewOrder(
                id: "ord_cli", outTradeNo: "Cord_cli", total: Money(minorUnits: 1275, currency: .cny), description: "Tea", metadata: [:],
                clientSecret: "ord_cli_secret"))
        let backup = folder.appendingPathComponent("backup.db").path
        let taken = await CapturedIO.run(["backup", "--db", database, "--to", backup, "--json"])
        #expect(taken.status == 0, "\(taken.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(taken.stdout.utf8)) as? [String: Any])
        #expect(report["orders"] as? Int == 1 && report["integrity"] as? String == "ok")

        let held = await CapturedIO.run(["restore", "--from", backup, "--db", database])
        #expect(held.status == 1 && held.stderr.contains("stop it before restoring"), "\(held.stderr)")
        await store.close()
        let restored = await CapturedIO.run(["restore", "--from", backup, "--db", database])
        #expect(restored.status == 0 && restored.stdout.contains("kept at"), "\(restored.stdout)\(restored.stderr)")
        #expect(await CapturedIO.run(["backup", "--db", "postgres://cashier@db/cashier", "--to", backup]).status == 2)
        #expect(
            await CapturedIO.run(["restore", "--from", folder.appendingPathComponent("missing.db").path, "--db", database]).status == 1)
    }
}

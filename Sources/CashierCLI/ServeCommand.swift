import ApplePay
import Cashier
import CashierCrypto
package import CashierHTTP
package import CashierServer
package import CashierStore
import Foundation
import WeChatPay

/// `cashier serve --config FILE`: the merchant server with the merchant's real credentials. Sandbox
/// mode (the provider simulators in process) is `cashier-sandbox serve`: this executable links no
/// simulator, and `cashier serve` without `--config` says so and exits 2.
package enum ServeCommand {
    static let command = Command(
        name: "serve",
        summary: "Run the merchant server with your providers' credentials (--config) until interrupted.",
        discussion: """
            --config FILE holds the merchant's real credentials (see ConfigurationFile: secrets come from environment variables
            or key files, and every field is checked at start). --ready-file gets {"api_url","publishable_key"} once the server
            accepts requests. At start the offline checks of `cashier doctor` run and what needs fixing is logged. SIGHUP (or
            `cashier reload --pid-file FILE`) reads the file and its key files again and swaps them in without a restart; a file
            with anything wrong is refused and the running configuration stays. Sandbox mode, with the provider sandboxes in
            process, is `cashier-sandbox serve`.
            """,
        options: listeningOptions + [
            .value("config", "FILE", "Real credentials (JSON; secrets from environment variables or key files)."),
            .value("ready-file", "FILE", "Write the URLs as JSON here when ready."),
            .value("catalog", "FILE", "Sandbox mode only (cashier-sandbox serve); with --config the file's catalog is used."),
            .value("webhook-url", "URL", "Sandbox mode only (cashier-sandbox serve); with --config the file's webhook is used."),
            .secret("webhook-secret", "Sandbox mode only (cashier-sandbox serve)."),
            .flag("sandbox", "Moved: sandbox mode is `cashier-sandbox serve`."),
            .flag(
                "access-log",
                "Log each request (method, path, status, sizes, time, request id) and each provider call it made; never bodies or keys."),
            .value("log-format", "json|text", "The log's lines on stderr: JSON objects (the default) or text for people."),
            .value("pid-file", "FILE", "Write the process id here (for `cashier reload --pid-file FILE`); removed at stop."),
        ]
    ) { arguments, io in
        guard let file = arguments.value("config"), !arguments.flag("sandbox") else {
            io.writeError("cashier serve: sandbox mode is now 'cashier-sandbox serve'\n")
            return CommandLineTool.usageError
        }
        return try await production(file: file, arguments, io)
    }

    /// The options both `cashier serve` and `cashier-sandbox serve` take for the server's port,
    /// its HTTP limits and its database.
    package static let listeningOptions: [Command.Option] = [
        .value("port", "N", "Port for the merchant API (default: any free port)."),
        .value(
            "per-ip-connection-limit", "N",
            "The most connections from one address (default 256; 0 for none, behind a proxy that limits clients)."),
        .value("request-deadline", "SECONDS", "The longest a request may take to arrive (default 30; 0 for none)."),
        .value(
            "publishable-requests-per-minute", "N",
            "Requests with the publishable key that create or pay, a minute from one address (default 0: no limit)."),
        .value(
            "db", "PATH|URL",
            "A SQLite file (default ./cashier.db) or postgres://user@host/db for several instances (the password from PGPASSWORD or a PGPASSFILE, never the URL)."
        ),
    ]

    /// Waits for SIGINT or SIGTERM, then stops: the server (requests, webhook sends and provider
    /// questions in flight finish), whatever `also` stops, and the store, last — nothing uses
    /// it any more. `first` runs as soon as the signal comes (`serve` stops taking SIGHUP there).
    /// A second signal meanwhile ends the process at once (``TerminationSignals``).
    package static func runUntilTerminated(
        _ server: MerchantServer, store: any OrderStore, _ io: CommandIO, also: () async -> Void = {}, first: () -> Void = {}
    ) async {
        await TerminationSignals.wait()
        first()
        io.write("stopping: finishing what is in flight (a second Ctrl-C or SIGTERM stops at once)\n")
        await server.stop()
        await also()
        await store.close()  // SQLite: the WAL copied back, -wal and -shm gone; PostgreSQL: sessions ended
        io.write("server stopped\n")
    }

    /// `cashier serve --config FILE`: no sandboxes, the configured providers.
    /// `--per-ip-connection-limit`, `--request-deadline` and `--publishable-requests-per-minute`, when given.
    package static func applyHTTPLimits(_ arguments: ParsedArguments, to configuration: inout MerchantConfiguration) throws {
        if let text = arguments.value("per-ip-connection-limit") {
            guard let limit = Int(text), (0...65_535).contains(limit) else {
                throw CommandFailure("--per-ip-connection-limit must be 0 (no limit) to 65535", status: 2)
            }
            configuration.perIPConnectionLimit = limit
        }
        if let text = arguments.value("request-deadline") {
            guard let seconds = Int(text), (0...3600).contains(seconds) else {
                throw CommandFailure("--request-deadline must be 0 (none) to 3600 seconds", status: 2)
            }
            configuration.requestDeadlineSeconds = seconds
        }
        if let text = arguments.value("publishable-requests-per-minute") {
            guard let rate = Int(text), (0...1_000_000).contains(rate) else {
                throw CommandFailure("--publishable-requests-per-minute must be 0 (no limit) to 1000000", status: 2)
            }
            configuration.publishableRequestsPerMinute = rate
        }
    }

    static func production(file: String, _ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let readyFile = try ReadyFile(arguments)
        let log = try Self.log(arguments)
        let parsed: ConfigurationFile
        do {
            parsed = try ConfigurationFile(contentsOf: URL(fileURLWithPath: file))
        } catch let problem as ConfigurationFile.Problem {
            throw CommandFailure(problem.description, status: 2)
        }
        guard let port = arguments.value("port").map({ UInt16($0) }) ?? parsed.port else {
            throw CommandFailure("--port must be 0 to 65535", status: 2)
        }
        let path = try CommandInput.database(arguments.value("db")) ?? parsed.database
        let store: any OrderStore
        do {
            store = try await OrderStoreOpener.open(path, poolSize: parsed.databasePoolSize, writers: parsed.databaseWriters)
        } catch let error as StoreError {
            throw CommandFailure("database: \(error.message)", status: 2)
        }
        var configuration = parsed.configuration
        try Self.applyHTTPLimits(arguments, to: &configuration)
        let doctor = Doctor(file: URL(fileURLWithPath: file), environment: io.environment)
        Self.logFindings(await doctor.atStart(), log)
        let server = MerchantServer(
            configuration: configuration, store: store, port: port, audit: SecretsAudit.fromEnvironment(),
            accessLog: Self.accessLog(arguments), log: arguments.flag("access-log") ? log : nil)
        do {
            try await server.start()
        } catch {
            throw CommandFailure("cannot start: \(error)")
        }
        let configured = parsed.configuration
        var providers: [String] = []
        if configured.wechat != nil { providers.append("WeChat Pay v2") }
        if configured.wechatV3 != nil { providers.append("WeChat Pay v3") }
        if let mini = configured.miniProgram { providers.append("mini program \(mini.appID)") }
        if configured.alipay != nil { providers.append("Alipay") }
        if configured.applePay != nil { providers.append("Apple Pay") }
        io.write("Cashier \(CashierVersion.current) — \(providers.isEmpty ? "no providers" : providers.joined(separator: ", "))\n")
        io.write("merchant API  \(server.baseURL.absoluteString)/v1   (orders in \(OrderStoreOpener.describe(path)))\n")
        io.write(
            "notify URLs   \(parsed.configuration.publicBaseURL ?? "")/notify/wechat/v2, /notify/wechat/v2/refund, /notify/wechat/v3, "
                + "/notify/alipay\n")
        let pidFile = arguments.value("pid-file")
        if let pidFile {
            do {
                try PrivateFile.write(Data("\(getpid())\n".utf8), to: pidFile)
            } catch {
                await server.stop()
                throw CommandFailure("--pid-file: cannot write \(pidFile): \(UserFile.whyUnwritable(pidFile) ?? "\(error)")")
            }
        }
        let reloading = Task {
            for await _ in HangupSignal.reloads() {
                await Self.reload(file: file, arguments, running: parsed, server: server, doctor: doctor, log: log, io: io)
            }
        }
        try await readyFile?.write(
            ["api_url": server.baseURL.absoluteString, "publishable_key": parsed.configuration.publishableKey], orStop: server.stop)
        await runUntilTerminated(
            server, store: store, io,
            first: {
                HangupSignal.uninstall()
                reloading.cancel()
            })
        if let pidFile { unlink(pidFile) }
        return 0
    }

    /// SIGHUP: the file and its key files read again, whole, with the checks of start; applied
    /// at once when they pass, else refused with the reason and the running configuration kept.
    static func reload(
        file: String, _ arguments: ParsedArguments, running: ConfigurationFile, server: MerchantServer, doctor: Doctor, log: ServerLog,
        io: CommandIO
    ) async {
        let parsed: ConfigurationFile
        var configuration: MerchantConfiguration
        do {
            parsed = try ConfigurationFile(contentsOf: URL(fileURLWithPath: file), environment: io.environment)
            configuration = parsed.configuration
            try Self.applyHTTPLimits(arguments, to: &configuration)
        } catch {
            let reason = (error as? ConfigurationFile.Problem)?.description ?? (error as? CommandFailure)?.message ?? "\(error)"
            server.reloadRefused()
            log.record("config_reload_refused", ["reason": .string(reason), "kept": "the running configuration"])
            return
        }
        Self.logFindings(await doctor.atStart(), log)
        var needsRestart = await server.reload(configuration).needsRestart
        if parsed.port != running.port { needsRestart.append("port") }
        if parsed.database != running.database { needsRestart.append("database") }
        var fields: [String: ServerLog.Value] = ["result": "applied"]
        if !needsRestart.isEmpty { fields["restart_needed_for"] = .string(needsRestart.joined(separator: ",")) }
        log.record("config_reloaded", fields)
    }

    /// The doctor's findings that need action, one line each (`doctor_finding`).
    static func logFindings(_ findings: [DoctorFinding], _ log: ServerLog) {
        for finding in findings where finding.needsAction {
            var fields: [String: ServerLog.Value] = [
                "check": .string(finding.check), "status": .string(finding.status.rawValue), "message": .string(finding.message),
            ]
            if let fix = finding.fix { fields["fix"] = .string(fix) }
            if let days = finding.daysLeft { fields["days_left"] = .int(days) }
            log.record("doctor_finding", fields)
        }
    }

    /// `--log-format`: the server's log on stderr.
    static func log(_ arguments: ParsedArguments) throws -> ServerLog {
        let name = arguments.value("log-format") ?? "json"
        guard let format = ServerLog.Format(rawValue: name) else {
            throw CommandFailure("--log-format must be json or text", status: 2)
        }
        return ServerLog(format: format) { line in try? FileHandle.standardError.writeRetrying(Data((line + "\n").utf8)) }
    }

    /// `--access-log`: a line per request on stderr, JSON (as ``AccessLogEntry/jsonLine``) unless `--log-format text`.
    package static func accessLog(_ arguments: ParsedArguments) -> (@Sendable (AccessLogEntry) -> Void)? {
        guard arguments.flag("access-log") else { return nil }
        let text = arguments.value("log-format") == "text"
        return { entry in
            let line = text ? ISO8601DateFormatter().string(from: Date()) + " " + entry.textLine : entry.jsonLine
            try? FileHandle.standardError.writeRetrying(Data((line + "\n").utf8))
        }
    }
}

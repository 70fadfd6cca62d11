import Cashier
import CashierCurl
import CashierServer
import Foundation

/// `cashier doctor --config FILE [--online] [--json]`: what would make a payment fail, found
/// before the first one (``Doctor``).
enum DoctorCommand {
    static let command = Command(
        name: "doctor",
        summary: "Check a configuration before going live: keys, certificates and their days left, URLs, permissions, database.",
        discussion: """
            Offline: the file cashier serve would accept; keys that parse and belong to their certificates; each certificate's
            days left (a problem within 7, a warning within 30); notify and return URLs (https, a public host); key files and
            the SQLite database readable by their owner only; the database reachable and its migrations. With --online also:
            one signed read-only call to each provider (a query for an order that does not exist: "no such order" proves the
            credentials), WeChat Pay v3's platform certificates, the clock against the providers' Date headers, and
            public_base_url/healthz. Each finding says what to fix. Exit 0: nothing to fix; 1: a warning or a problem; 2: usage.
            """,
        options: [
            .value("config", "FILE", "The configuration file cashier serve reads.", required: true),
            .value("db", "PATH|URL", "Check this database instead of the file's."),
            .flag("online", "Also call the providers (read-only) and compare the clock."),
            .flag("json", "Print {\"clean\": …, \"findings\": [{check, status, message, fix, days_left}]}."),
        ]
    ) { arguments, io in
        let file = arguments.required("config")
        guard FileManager.default.fileExists(atPath: file) else {
            throw CommandFailure("--config: there is no file \(file)", status: 2)
        }
        let doctor = Doctor(
            file: URL(fileURLWithPath: file), environment: io.environment, database: try CommandInput.database(arguments.value("db")))
        var findings = await doctor.offline()
        if arguments.flag("online") {
            findings += await doctor.online(transport: CurlTransport())
        }
        let status = Doctor.exitStatus(findings)
        if arguments.flag("json") {
            try CommandInput.printEncodedJSON(DoctorFinding.Report(clean: status == 0, findings: findings), io)
        } else {
            for finding in findings { io.write(finding.textLines) }
            let count = findings.filter(\.needsAction).count
            io.write(status == 0 ? "\nclean: nothing to fix\n" : "\n\(count) thing(s) to fix before going live\n")
        }
        return status
    }
}

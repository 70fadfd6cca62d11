public import Cashier
import CashierCrypto
import CashierStore
public import Foundation

/// `cashier doctor`: everything a merchant would otherwise learn from a failed payment, checked
/// before the first one — the configuration the server would accept, keys that parse and belong
/// to their certificates, certificates and the days they have left, notify and return URLs the
/// providers can reach, key files only their owner reads, the database and its migrations; and,
/// with ``online(transport:)``, the clock against a provider's and one signed read-only call to
/// each provider (a query for an order that does not exist: "no such order" means the signature
/// was accepted).
///
/// ```swift
/// let doctor = Doctor(file: URL(fileURLWithPath: "cashier.json"))
/// var findings = await doctor.offline()
/// findings += await doctor.online(transport: CurlTransport())
/// let clean = !findings.contains { $0.needsAction }
/// ```
public struct Doctor: Sendable {
    /// The configuration file.
    public let file: URL
    let environment: [String: String]
    let now: Date
    /// The database to check instead of the file's (`--db`).
    let database: String?

    /// - Parameters:
    ///   - file: the configuration file `cashier serve --config` reads.
    ///   - environment: where `…_env` secrets are read.
    ///   - now: the time certificates are measured against.
    ///   - database: a database to check in place of the file's `database`.
    public init(
        file: URL, environment: [String: String] = ProcessInfo.processInfo.environment, now: Date = Date(), database: String? = nil
    ) {
        self.file = file
        self.environment = environment
        self.now = now
        self.database = database
    }

    /// What `cashier serve` runs at start (``offline(includingDatabase:)`` without the database,
    /// which the server opens itself).
    public func atStart() async -> [DoctorFinding] {
        await offline(includingDatabase: false).filter { $0.check != "config" }
    }

    /// Every check that needs no network: the configuration, keys and certificates, addresses,
    /// file permissions and (when `includingDatabase`) the database.
    public func offline(includingDatabase: Bool = true) async -> [DoctorFinding] {
        let reader = ConfigurationFile.Reader(folder: file.deletingLastPathComponent(), environment: environment)
        let root: ConfigurationFile.Object
        do {
            root = try ConfigurationFile.root(contentsOf: file)
        } catch let problem as ConfigurationFile.Problem {
            return [DoctorFinding("config", .problem, problem.description, fix: "give the configuration file cashier serve reads")]
        } catch {
            return [DoctorFinding("config", .problem, "\(error)")]
        }
        var findings: [DoctorFinding] = []
        do {
            _ = try ConfigurationFile(root, reader)
            findings.append(DoctorFinding("config", .ok, "cashier serve accepts \(file.lastPathComponent)"))
        } catch let problem as ConfigurationFile.Problem {
            findings.append(
                DoctorFinding(
                    "config", .problem, "cashier serve refuses \(file.lastPathComponent): \(problem.path): \(problem.reason)",
                    fix: "correct \(problem.path) (the checks below go on with what can be read)"))
        } catch {
            findings.append(DoctorFinding("config", .problem, "cashier serve refuses \(file.lastPathComponent): \(error)"))
        }
        let credentials = Credentials(root: root, reader: reader, now: now)
        findings += credentials.findings()
        findings += Addresses(root: root).findings()
        findings += FilePermissions(root: root, reader: reader, database: databaseLocation(root, reader)).findings()
        if includingDatabase {
            findings += await databaseFindings(root, reader)
        }
        findings.append(
            DoctorFinding(
                "clock", .note, "not compared with a provider's clock (that needs the network)",
                fix: "run cashier doctor --online to compare it with WeChat Pay's and Alipay's"))
        return findings
    }

    /// The certificates a configuration file names that parse, with when each ends: what the
    /// server reports on `/metrics`. Never throws: a file that does not parse is the
    /// configuration's or the doctor's to report.
    static func certificates(_ root: ConfigurationFile.Object, _ reader: ConfigurationFile.Reader) -> [MonitoredCertificate] {
        Credentials(root: root, reader: reader, now: Date()).monitored()
    }

    /// Exit status for `findings`: 0 when none needs action, 1 otherwise.
    public static func exitStatus(_ findings: [DoctorFinding]) -> Int32 {
        findings.contains { $0.needsAction } ? 1 : 0
    }

    /// `--db`, else the file's `database`, else `cashier.db`.
    func databaseLocation(_ root: ConfigurationFile.Object, _ reader: ConfigurationFile.Reader) -> String {
        database ?? (try? ConfigurationFile.databaseFields(root, reader))?.location ?? "cashier.db"
    }

    /// The database: reachable, and its migrations this version's.
    func databaseFindings(_ root: ConfigurationFile.Object, _ reader: ConfigurationFile.Reader) async -> [DoctorFinding] {
        let location = databaseLocation(root, reader)
        let shown = OrderStoreOpener.describe(location)
        let isPostgres = location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
        // A relative SQLite path is opened from the working folder, as cashier serve opens it.
        let path = location
        if !isPostgres, !FileManager.default.fileExists(atPath: path) {
            return [
                DoctorFinding(
                    "database", .note, "\(shown) does not exist yet: cashier serve creates it (0600) and migrates it at start",
                    fix: "run cashier doctor from the folder cashier serve runs in, or give --db, if it should exist")
            ]
        }
        let status: MigrationStatus
        do {
            status = try await OrderStoreOpener.migrationStatus(path)
        } catch let error as StoreError {
            return [
                DoctorFinding(
                    "database", .problem, "\(shown) cannot be read: \(error.message)", fix: "check the path or URL, and PGPASSWORD")
            ]
        } catch {
            return [DoctorFinding("database", .problem, "\(shown) cannot be read: \(error)")]
        }
        var findings: [DoctorFinding] = []
        if !status.unknown.isEmpty {
            findings.append(
                DoctorFinding(
                    "database.migrations", .problem,
                    "\(shown) was migrated by a newer Cashier (it holds \(status.unknown.joined(separator: ", "))): this version refuses to start on it",
                    fix: "run the newer cashier, or restore a backup taken before the upgrade (cashier restore)"))
        } else if status.applied.isEmpty {
            findings.append(
                DoctorFinding("database.migrations", .note, "\(shown) has no Cashier tables yet: cashier serve creates them at start"))
        } else if !status.pending.isEmpty {
            findings.append(
                DoctorFinding(
                    "database.migrations", .note,
                    "\(shown) lacks \(status.pending.count) migration(s) (\(status.pending.joined(separator: ", "))): cashier serve applies them at start",
                    fix: "back it up first (cashier backup, or pg_dump): docs/deploy/backup.md"))
        } else {
            findings.append(
                DoctorFinding(
                    "database.migrations", .ok, "\(shown) is reachable and at \(MigrationStatus.latest ?? "the latest migration")"))
        }
        return findings
    }
}

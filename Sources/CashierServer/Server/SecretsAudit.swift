public import Foundation
import Synchronization

/// Test tooling for the secrets check (`scripts/with-audit`, part of `make test`): when
/// `CASHIER_AUDIT_DIR` is set, a merchant server writes every response body to
/// `DIR/responses-<pid>.log`, every access-log line to `DIR/access-<pid>.log`, the secrets it
/// holds (keys, and any PAN or cryptogram it decrypts) to `DIR/secrets-<pid>.txt`, and the
/// secrets it answers but must not log (orders' client secrets) to `DIR/log-secrets-<pid>.txt`;
/// afterwards the check greps the logs and responses for the first kind, the logs for both, and
/// fails on any hit. Without the variable there is no audit. A server is given one explicitly
/// (``MerchantServer/init(configuration:store:host:port:clock:audit:accessLog:)``).
public final class SecretsAudit: Sendable {
    /// The audit `CASHIER_AUDIT_DIR` asks for, or `nil`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> SecretsAudit? {
        environment["CASHIER_AUDIT_DIR"].map(SecretsAudit.init(folder:))
    }

    private let responses: String
    private let secrets: String
    private let logs: String
    private let logSecrets: String
    private let lock = Mutex(())

    /// Records into `folder` (four files per process).
    public init(folder: String) {
        let pid = ProcessInfo.processInfo.processIdentifier
        responses = folder + "/responses-\(pid).log"
        secrets = folder + "/secrets-\(pid).txt"
        logs = folder + "/access-\(pid).log"
        logSecrets = folder + "/log-secrets-\(pid).txt"
    }

    /// Remembers values that must never appear in a response or a log line.
    func secret(_ values: [String?]) {
        append(Self.lines(values), to: secrets)
    }

    /// Remembers values the API answers to whoever may have them (an order's client secret, to
    /// the backend that made the order) but no log line may hold.
    func secretFromLogs(_ values: [String?]) {
        append(Self.lines(values), to: logSecrets)
    }

    /// Records what left the server.
    func output(_ text: String) {
        append(Self.line(text), to: responses)
    }

    /// Records an access-log line: checked against both kinds of secret.
    func log(_ line: String) {
        append(Self.line(line), to: logs)
    }

    /// `text` as one line of a record.
    private static func line(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ") + "\n"
    }

    private static func lines(_ values: [String?]) -> String {
        values.compactMap { $0 }.filter { $0.count >= 8 }.map { $0 + "\n" }.joined()
    }

    private func append(_ text: String, to path: String) {
        guard !text.isEmpty else { return }
        lock.withLock { _ in
            // Owner-only, whatever the umask: these files hold the server's secrets.
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            try? handle.close()
        }
    }
}

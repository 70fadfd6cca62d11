public import Foundation
import Synchronization

/// Test tooling for the secrets check (`scripts/with-audit`, part of `make test`): when
/// `CASHIER_AUDIT_DIR` is set, a merchant server writes every response body and access-log line
/// to `DIR/responses-<pid>.log`, and the secrets it holds (keys, and any PAN or cryptogram it
/// decrypts) to `DIR/secrets-<pid>.txt`; afterwards the check greps the one for the other and
/// fails on any hit. Without the variable there is no audit. A server is given one explicitly
/// (``MerchantServer/init(configuration:store:host:port:clock:audit:accessLog:)``).
public final class SecretsAudit: Sendable {
    /// The audit `CASHIER_AUDIT_DIR` asks for, or `nil`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> SecretsAudit? {
        environment["CASHIER_AUDIT_DIR"].map(SecretsAudit.init(folder:))
    }

    private let responses: String
    private let secrets: String
    private let lock = Mutex(())

    /// Records into `folder` (one pair of files per process).
    public init(folder: String) {
        let pid = ProcessInfo.processInfo.processIdentifier
        responses = folder + "/responses-\(pid).log"
        secrets = folder + "/secrets-\(pid).txt"
    }

    /// Remembers values that must never appear in a response or a log line.
    func secret(_ values: [String?]) {
        append(values.compactMap { $0 }.filter { $0.count >= 8 }.map { $0 + "\n" }.joined(), to: secrets)
    }

    /// Records what left the server.
    func output(_ text: String) {
        append(text.replacingOccurrences(of: "\n", with: " ") + "\n", to: responses)
    }

    private func append(_ text: String, to path: String) {
        guard !text.isEmpty else { return }
        lock.withLock { _ in
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            try? handle.close()
        }
    }
}

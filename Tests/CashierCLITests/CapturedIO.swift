import CashierCLI
import CashierSandboxCLI
import Foundation
import Synchronization
import TestSupport

/// Runs `cashier` in process with a given stdin and captures what it prints.
final class CapturedIO: Sendable {
    private let output = Mutex("")
    private let errors = Mutex("")
    private let input: Data
    private let environment: [String: String]

    /// - Parameter environment: added to the process's for `--NAME-env` (never `setenv`: other
    ///   tests start processes at the same time, and glibc's environment is not safe for that).
    init(stdin: String = "", environment: [String: String] = [:]) {
        input = Data(stdin.utf8)
        self.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }

    var io: CommandIO {
        CommandIO(
            readInput: { [input] in input },
            write: { [self] text in output.withLock { $0 += text } },
            writeError: { [self] text in errors.withLock { $0 += text } },
            environment: environment
        )
    }

    var stdout: String { output.withLock { $0 } }
    var stderr: String { errors.withLock { $0 } }

    /// Runs the tool (`cashier`) and returns (status, stdout, stderr).
    static func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) async -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let captured = CapturedIO(stdin: stdin, environment: environment)
        let status = await CashierTool.main(arguments: arguments, io: captured.io)
        return (status, captured.stdout, captured.stderr)
    }

    /// Runs `cashier-sandbox` and returns (status, stdout, stderr).
    static func runSandbox(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) async -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let captured = CapturedIO(stdin: stdin, environment: environment)
        let status = await CashierSandboxTool.main(arguments: arguments, io: captured.io)
        return (status, captured.stdout, captured.stderr)
    }
}

extension CapturedIO {
    /// A file holding `secret` (readable by this user only), for a `--NAME-file` option: secrets
    /// never go on the command line.
    static func secretFile(_ secret: String) -> String {
        let url = Scratch.url("cli-secret-\(UUID().uuidString)")
        let made = FileManager.default.createFile(atPath: url.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        precondition(made, "cannot write \(url.path)")
        return url.path
    }
}

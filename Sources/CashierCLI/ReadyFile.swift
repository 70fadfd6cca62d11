import Cashier
import Foundation

/// `--ready-file FILE`: where a long-running command (`serve`, `sandbox`) writes its URLs — and in
/// sandbox mode its keys — as one JSON object once it accepts requests, for a script or a test.
package struct ReadyFile {
    package let path: String

    /// The file `--ready-file` names, or `nil`. Checked before anything starts, so a mistyped
    /// folder stops the command at once with what to fix, not after its servers are up.
    /// - Throws: ``CommandFailure`` (status 2) saying why the file could not be written.
    package init?(_ arguments: ParsedArguments) throws {
        guard let path = arguments.value("ready-file") else { return nil }
        if let reason = UserFile.whyUnwritable(path) { throw CommandFailure("--ready-file: \(path) \(reason)", status: 2) }
        self.path = path
    }

    /// Writes `fields`, readable by this user only (they may include keys), once SIGINT and
    /// SIGTERM are caught (``TerminationSignals/install()``): whoever reads the file may signal at
    /// once. When the write fails (the disk filled up since the check, say), `stop` runs first:
    /// a command that gives up stops its servers rather than exiting under their threads.
    package func write(_ fields: [String: String], orStop stop: () async -> Void) async throws {
        TerminationSignals.install()
        do {
            let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
            try PrivateFile.write(data, to: path)
        } catch {
            TerminationSignals.uninstall()
            await stop()
            let words = (error as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? "\(error)"
            throw CommandFailure("--ready-file: cannot write \(path): \(UserFile.whyUnwritable(path) ?? words)")
        }
    }
}

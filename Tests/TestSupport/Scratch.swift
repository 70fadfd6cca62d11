public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where tests put their files: one folder per test process in the system's temporary folder,
/// `cashier-tests-PID`, removed when the process exits. A run that was killed leaves its folder;
/// the next test process removes the folders of processes that are gone. Test files (SQLite
/// databases, secret files, key files) never pile up in `/tmp`, however often `make test` runs.
public enum Scratch {
    public static let prefix = "cashier-tests-"

    /// This process's folder, made on first use.
    public static let folder: URL = {
        let temporary = FileManager.default.temporaryDirectory
        removeFoldersOfEndedProcesses(in: temporary)
        let folder = temporary.appendingPathComponent("\(prefix)\(getpid())")
        try? FileManager.default.removeItem(at: folder)  // a folder left by an ended process with this pid
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            fatalError("Scratch: cannot make \(folder.path): \(error)")
        }
        atexit { Scratch.removeFolder() }
        return folder
    }()

    /// Removes this process's folder at exit. A child process still ending (a server, a browser)
    /// can add a file while the folder is being removed, which fails the removal: it is tried
    /// again a few times, and a folder that still cannot be removed says why on stderr.
    static func removeFolder() {
        var lastError: (any Error)?
        for attempt in 0..<5 {
            if attempt > 0 { usleep(100_000) }
            do {
                try FileManager.default.removeItem(at: folder)
                return
            } catch {
                if !FileManager.default.fileExists(atPath: folder.path) { return }
                lastError = error
            }
        }
        FileHandle.standardError.write(Data("Scratch: cannot remove \(folder.path): \(lastError.map { "\($0)" } ?? "")\n".utf8))
    }

    /// `name` in this process's folder (nothing is made there).
    public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// `name` in this process's folder, as a path.
    public static func path(_ name: String) -> String { url(name).path }

    /// A new, empty folder in this process's scratch folder, named `prefix` and a UUID.
    public static func newFolder(_ prefix: String) throws -> URL {
        let folder = url("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The environment a child process should get so that its own temporary files (Python's
    /// `tempfile`, chromium's profile folders, SwiftPM's lock files) land in this folder too.
    public static var childEnvironment: [String: String] { ["TMPDIR": folder.path] }

    /// Removes `cashier-tests-PID` folders whose process has ended.
    public static func removeFoldersOfEndedProcesses(in temporary: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name)) }
        }
    }
}

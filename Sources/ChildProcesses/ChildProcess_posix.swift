internal import CSpawnShims
public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn`, for the tests and the bench (Cashier itself starts none).
///
/// Foundation's `Process` is not used because, in Swift 6.3 on Linux, `Process.run()` lists
/// `/proc/self/fd` to close the parent's descriptors and copies 256 bytes of each entry, which
/// crashes the parent (SIGSEGV) when an entry ends just before an unmapped page
/// (swift-corelibs-foundation#5472) — in a test process holding a thousand descriptors, about one
/// run in thirty. Here the child closes them itself (`closefrom(3)`, one `close_range` call)
/// after its standard streams are in place, and also starts with no blocked signals and every
/// signal at its default: a child started from a thread that blocks SIGTERM (Dispatch's worker
/// threads do) would otherwise ignore `terminate()`.
///
/// ```swift
/// let output = Pipe()
/// let child = try ChildProcess("/usr/bin/openssl", ["version"], stdout: .pipe(output))
/// let text = try output.fileHandleForReading.readToEnd()
/// child.waitUntilExit()
/// ```
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// The parent's own descriptor.
        case inherit
        /// `/dev/null`.
        case null
        /// The child's end of a pipe (the parent's copy of that end is closed once it has started).
        case pipe(Pipe)
        /// An open file or socket.
        case handle(FileHandle)

        /// What the child's descriptor `target` becomes: the handle, or the pipe's end the child
        /// uses (reading for standard input, writing for the outputs).
        func childEnd(for target: Int32) -> FileHandle? {
            switch self {
            case .inherit, .null: nil
            case .pipe(let pipe): target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
            case .handle(let handle): handle
            }
        }
    }

    /// The child's process id.
    public let processIdentifier: Int32
    /// `wait`'s status once the child has been reaped.
    private let status = Mutex<Int32?>(nil)
    /// The streams, kept as long as the child is: the parent's end of a pipe nobody reads stays
    /// open, so the child's writes wait for a reader instead of failing with SIGPIPE.
    private let streams: [Stream]

    /// Starts `executable` (a path: nothing is looked up in `PATH`) with `arguments`.
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments, without the program's name.
    ///   - environment: the whole environment the child gets; `nil` passes the parent's.
    ///   - directory: the child's working directory; `nil` keeps the parent's.
    ///   - stdin: where the child's standard input comes from.
    ///   - stdout: where its standard output goes.
    ///   - stderr: where its standard error goes.
    /// - Throws: ``SpawnError`` naming the program and the reason (`posix_spawn`'s error).
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil, directory: URL? = nil,
        stdin: Stream = .inherit, stdout: Stream = .inherit, stderr: Stream = .inherit
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        let streams = [(stdin, Int32(0)), (stdout, Int32(1)), (stderr, Int32(2))]
        for (stream, target) in streams {
            if case .null = stream { posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0) }
            if let end = stream.childEnd(for: target) { posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target) }
        }
        cashier_spawn_addclosefrom(&actions, 3)
        if let directory { cashier_spawn_addchdir(&actions, directory.path) }

        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var everySignal = sigset_t()
        sigfillset(&everySignal)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer { for string in argv + (envp ?? []) { free(string) } }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { arguments in
            guard let envp else { return posix_spawn(&pid, executable, &actions, &attributes, arguments.baseAddress!, environ) }
            return (envp + [nil]).withUnsafeBufferPointer {
                posix_spawn(&pid, executable, &actions, &attributes, arguments.baseAddress!, $0.baseAddress!)
            }
        }
        guard result == 0 else { throw SpawnError(executable: executable, code: result) }
        processIdentifier = pid
        self.streams = [stdin, stdout, stderr]

        // The parent's copies of the child's ends: a reader sees end-of-file only once every writer is gone.
        var closed = Set<Int32>()
        for (stream, target) in streams {
            guard case .pipe = stream, let end = stream.childEnd(for: target) else { continue }
            if closed.insert(end.fileDescriptor).inserted { try? end.close() }
        }
    }

    /// Whether the child has not exited yet (reaping it if it has).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Blocks until the child has exited.
    public func waitUntilExit() {
        _ = reap(blocking: true)
    }

    /// The exit code, or the number of the signal that ended the child; waits for it to exit.
    public var terminationStatus: Int32 {
        let status = reap(blocking: true) ?? 0
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Whether the child was ended by a signal (waits for it to exit).
    public var wasSignalled: Bool {
        let status = reap(blocking: true) ?? 0
        return status & 0x7f != 0 && status & 0x7f != 0x7f
    }

    /// Asks the child to stop (SIGTERM), if it is still running.
    public func terminate() { signal(SIGTERM) }

    /// Sends SIGINT (Ctrl-C), if the child is still running.
    public func interrupt() { signal(SIGINT) }

    /// Stops the child for good — SIGKILL, which it can neither block nor handle — and waits for it.
    public func stopForGood() {
        signal(SIGKILL)
        waitUntilExit()
    }

    /// Sends `number` unless the child has been reaped (its id may then belong to another process).
    private func signal(_ number: Int32) {
        status.withLock { status in
            if status == nil { kill(processIdentifier, number) }
        }
    }

    /// The child's wait status once it has exited. Blocking waits without reaping (`WNOWAIT`), so
    /// any number of threads may wait; the reaping itself happens once, under the lock.
    private func reap(blocking: Bool) -> Int32? {
        // Not once it has been reaped: its id may by then be another child's.
        if blocking, status.withLock({ $0 }) == nil {
            var info = siginfo_t()
            while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        }
        return status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            if waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier { status = raw }
            return status
        }
    }

    deinit {
        // A child still running is not waited for; one that has exited is reaped (no zombie).
        _ = reap(blocking: false)
    }
}

/// `posix_spawn` could not start a program.
public struct SpawnError: Error, CustomStringConvertible {
    public let executable: String
    public let code: Int32

    public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
}

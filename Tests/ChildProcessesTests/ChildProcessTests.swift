import ChildProcesses
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ChildProcessTests {
    /// Runs a child with its output in a pipe; returns the output and the exit code.
    func output(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil, input: String? = nil
    ) throws -> (text: String, status: Int32) {
        let output = Pipe()
        let stdin = Pipe()
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, stdin: input == nil ? .null : .pipe(stdin),
            stdout: .pipe(output))
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let text = String(decoding: try output.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        return (text, child.terminationStatus)
    }

    @Test func outputStatusInputAndDirectory() throws {
        #expect(try output("/bin/sh", ["-c", "echo hello; exit 3"]) == ("hello\n", 3))
        #expect(try output("/bin/sh", ["-c", "exit 0"]).status == 0)
        #expect(try output("/bin/cat", [], input: "fed through stdin") == ("fed through stdin", 0))
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
        #expect(try output("/bin/pwd", [], directory: folder).text == folder.path + "\n")
    }

    @Test func anEnvironmentReplacesTheParentsAndNoneInheritsIt() throws {
        #expect(try output("/usr/bin/env", [], environment: ["ONLY": "this"]).text == "ONLY=this\n")
        let inherited = try output("/usr/bin/env", []).text
        #expect(inherited.contains("PATH="))
    }

    @Test func errorsNameTheProgram() {
        let error = #expect(throws: SpawnError.self) { try ChildProcess("/nonexistent/program") }
        #expect(error?.description == "cannot start /nonexistent/program: No such file or directory")
    }

    /// A descriptor the parent holds is not the child's: closing the parent's write end of a pipe
    /// gives its reader end-of-file while the child still runs. (A child that inherited it would
    /// keep the pipe open until it exits; Foundation's Process avoided that by listing
    /// /proc/self/fd — the listing that crashes in 6.3.)
    @Test func theParentsDescriptorsAreNotInherited() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)  // no O_CLOEXEC: only closefrom keeps it from the child
        let child = try ChildProcess("/bin/sleep", ["30"], stdout: .null, stderr: .null)
        defer { child.stopForGood() }
        close(ends[1])
        var ready = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 10_000) == 1, "the child holds the pipe open")
        var byte: UInt8 = 0
        if ready.revents != 0 { #expect(read(ends[0], &byte, 1) == 0, "end-of-file") }
        #expect(child.isRunning)
        close(ends[0])
    }

    /// A child started from a thread that blocks SIGTERM still stops on SIGTERM.
    @Test func aChildDoesNotInheritTheThreadsBlockedSignals() throws {
        let started = Mutex<Result<ChildProcess, any Error>?>(nil)
        let made = DispatchSemaphore(value: 0)
        let thread = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let result = Result { try ChildProcess("/bin/sleep", ["30"]) }
            started.withLock { $0 = result }
            made.signal()
        }
        thread.start()
        made.wait()
        let child = try #require(try started.withLock { $0 }?.get())
        defer { child.stopForGood() }
        child.terminate()
        // Woken when it ends (reaped on a thread of its own), or after 10 s.
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            child.waitUntilExit()
            ended.signal()
        }
        _ = ended.wait(timeout: .now() + 10)
        #expect(!child.isRunning, "SIGTERM was ignored: the child kept its parent thread's mask")
        #expect(child.wasSignalled && child.terminationStatus == SIGTERM)
    }

    /// Several threads may wait for one child; it is reaped once, and every waiter sees its status.
    @Test func manyWaitersOneReaping() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "sleep 0.2; exit 7"])
        let statuses = await withTaskGroup(of: Int32.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread.detachNewThread { continuation.resume(returning: child.terminationStatus) }
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [7, 7, 7, 7])
        #expect(!child.isRunning && !child.wasSignalled)
        child.terminate()  // after the reaping: nothing is sent (the id may be another process's now)
    }
}

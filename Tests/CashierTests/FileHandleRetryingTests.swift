import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Cashier

#if canImport(Glibc)
    import Glibc
#endif

/// Reads and writes that a signal interrupts (`EINTR`) are retried, where Foundation's
/// `readDataToEndOfFile()` stops the whole process: a test process whose children exit gets
/// `SIGCHLD` at any moment.
@Suite struct FileHandleRetryingTests {
    /// Interruptions the test's SIGUSR2 handler has taken (touched before the handler is
    /// installed: a global is made on first use, which a signal handler must not be the one to do).
    static let interruptions = Atomic<Int>(0)

    /// Whether thread `task` (`/proc/self/task/<task>`) is blocked in `read(2)`, as the kernel
    /// says: nothing in the process can tell when a thread has entered a system call.
    static func blockedInRead(_ task: String) -> Bool {
        #if arch(x86_64)
            let read = "0"
        #else
            let read = "63"  // aarch64
        #endif
        let call = (try? String(contentsOfFile: "/proc/self/task/\(task)/syscall", encoding: .utf8)) ?? ""
        return call.split(separator: " ").first.map(String.init) == read
    }

    @Test func readToEndSurvivesInterruptingSignals() async throws {
        // A handler without SA_RESTART, so a blocked read(2) returns EINTR.
        _ = Self.interruptions.load(ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in FileHandleRetryingTests.interruptions.add(1, ordering: .relaxed) }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }

        let pipe = Pipe()
        let reader = Mutex<(thread: pthread_t, task: String)?>(nil)
        let started = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Data, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Threads may start with signals blocked; this one takes SIGUSR2.
            var mask = sigset_t()
            sigemptyset(&mask)
            sigaddset(&mask, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
            // "PID/task/TID": this thread's entry in /proc.
            let task = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last
            reader.withLock { $0 = (pthread_self(), task.map(String.init) ?? "") }
            started.signal()
            let read = Result { try pipe.fileHandleForReading.readToEndRetrying() }
            result.withLock { $0 = read }
            finished.signal()
        }
        started.wait()
        let (thread, task) = try #require(reader.withLock { $0 })
        /// Interrupts the reader while it waits in read(2), and waits until it waits there again.
        func interrupt() async {
            #expect(await eventually { Self.blockedInRead(task) }, "the reader waits in read(2)")
            let before = Self.interruptions.load(ordering: .relaxed)
            pthread_kill(thread, SIGUSR2)
            #expect(await eventually { Self.interruptions.load(ordering: .relaxed) > before }, "the signal was taken")
            #expect(await eventually { Self.blockedInRead(task) }, "read(2) was tried again")
        }
        // Interrupt the reader while it waits, between writes and after the last one.
        for part in ["first ", "second ", "third"] {
            await interrupt()
            try pipe.fileHandleForWriting.writeRetrying(Data(part.utf8))
        }
        await interrupt()
        try pipe.fileHandleForWriting.close()
        finished.wait()
        let data = try #require(result.withLock { $0 }).get()
        #expect(String(decoding: data, as: UTF8.self) == "first second third")
    }

    @Test func readRetryingReturnsWhatIsThereAndEmptyAtEnd() throws {
        let pipe = Pipe()
        try pipe.fileHandleForWriting.writeRetrying(Data("ready 8080\n".utf8))
        #expect(try pipe.fileHandleForReading.readRetrying() == Data("ready 8080\n".utf8))
        try pipe.fileHandleForWriting.close()
        #expect(try pipe.fileHandleForReading.readRetrying().isEmpty)
    }

    @Test func writeToAClosedReaderThrows() throws {
        signal(SIGPIPE, SIG_IGN)
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        #expect(throws: POSIXError.self) { try pipe.fileHandleForWriting.writeRetrying(Data("lost".utf8)) }
    }
}

import Foundation
import Synchronization
import Testing

@testable import Cashier

#if canImport(Glibc)
    import Glibc
#endif

/// Reads and writes that a signal interrupts (`EINTR`) are retried, where Foundation's
/// `readDataToEndOfFile()` stops the whole process: a test process whose children exit gets
/// `SIGCHLD` at any moment.
@Suite struct FileHandleRetryingTests {
    @Test func readToEndSurvivesInterruptingSignals() throws {
        // A handler without SA_RESTART, so a blocked read(2) returns EINTR.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }

        let pipe = Pipe()
        let reader = Mutex<pthread_t?>(nil)
        let result = Mutex<Result<Data, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Threads may start with signals blocked; this one takes SIGUSR2.
            var mask = sigset_t()
            sigemptyset(&mask)
            sigaddset(&mask, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
            reader.withLock { $0 = pthread_self() }
            let read = Result { try pipe.fileHandleForReading.readToEndRetrying() }
            result.withLock { $0 = read }
            finished.signal()
        }
        while reader.withLock({ $0 }) == nil { usleep(1_000) }
        let thread = try #require(reader.withLock { $0 })
        // Interrupt the reader while it waits, between writes and after the last one.
        for part in ["first ", "second ", "third"] {
            usleep(20_000)
            pthread_kill(thread, SIGUSR2)
            usleep(20_000)
            try pipe.fileHandleForWriting.writeRetrying(Data(part.utf8))
        }
        usleep(20_000)
        pthread_kill(thread, SIGUSR2)
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

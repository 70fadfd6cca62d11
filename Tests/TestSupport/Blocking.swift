import Cashier
public import Foundation
import Synchronization

/// Runs blocking work (a subprocess, a file wait) on a thread of its own, never on Swift's
/// cooperative pool: on a 2-core machine that pool has two threads, and a test that blocks them
/// starves every server handler the test is waiting for.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The result of a finished subprocess.
public struct SubprocessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs `executable` with `arguments`, feeding `stdin`, on a thread of its own.
public func runSubprocess(
    _ executable: String, _ arguments: [String], stdin: Data = Data(), in folder: URL? = nil, environment: [String: String] = [:]
) async throws -> SubprocessResult {
    try await onOwnThread {
        try checkOpenFileDescriptors()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let folder { process.currentDirectoryURL = folder }
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        try? input.fileHandleForWriting.writeRetrying(stdin)  // a child that reads nothing may have gone
        try input.fileHandleForWriting.close()
        // stderr is drained on another thread so neither pipe can fill up and stall the child.
        let errorData = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = (try? errors.fileHandleForReading.readToEndRetrying()) ?? Data()
            errorData.withLock { $0 = data }
            errorsRead.signal()
        }
        let out = try output.fileHandleForReading.readToEndRetrying()
        process.waitUntilExit()
        errorsRead.wait()
        return SubprocessResult(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }
}

/// The package's root folder, found from this file's path.
public let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { url.deleteLastPathComponent() }
    return url
}()

/// Foundation's `Process.run()` on Linux reads past glibc's directory buffer while listing
/// `/proc/self/fd` once about 1,350 descriptors are open (swift-corelibs-foundation PR 5472) and
/// the test process dies with SIGSEGV. The suite keeps fewer open (about 1,150 at its busiest
/// moment, with PostgreSQL); this fails the spawning test clearly before the crash could happen.
/// Tests run in parallel, so the count is a shared, passing peak: when it is over the limit this
/// waits (blocking its thread, up to `patience`) for other tests to finish and close theirs, and
/// throws only when it stays there — a leak, not a busy moment.
public func checkOpenFileDescriptors(limit: Int = 1_200, patience: TimeInterval = 120) throws {
    func count() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
    let deadline = Date().addingTimeInterval(patience)
    var open = count()
    while open >= limit && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.25)
        open = count()
    }
    guard open < limit else {
        throw TooManyOpenFiles(
            description: "\(open) file descriptors are open; Foundation's Process.run() crashes near 1,350 (tests leave servers running?)")
    }
}

public struct TooManyOpenFiles: Error, CustomStringConvertible {
    public let description: String
}

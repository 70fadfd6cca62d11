import Cashier
import ChildProcesses
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
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        let process = try ChildProcess(
            executable, arguments,
            environment: ProcessInfo.processInfo.environment.merging(Scratch.childEnvironment) { $1 }.merging(environment) { $1 },
            directory: folder, stdin: .pipe(input), stdout: .pipe(output), stderr: .pipe(errors))
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

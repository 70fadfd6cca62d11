import Cashier
import ChildProcesses
import Foundation

/// Runs a command for the benchmarks (`openssl speed`, a peer SDK's script) and returns its stdout.
enum Subprocess {
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> String {
        let stdout = Pipe()
        let stdin = Pipe()
        let process = try ChildProcess(
            executable, arguments, stdin: input == nil ? .inherit : .pipe(stdin), stdout: .pipe(stdout), stderr: .null)
        if let input {
            try stdin.fileHandleForWriting.writeRetrying(input)
            try stdin.fileHandleForWriting.close()
        }
        let data = try stdout.fileHandleForReading.readToEndRetrying()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("\(executable) \(arguments.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

import Foundation

/// Runs a benchmark script of a peer SDK in the project's virtualenv (`scripts/python-env`).
struct PythonPeer {
    let root: URL
    let python: String

    /// Finds the repository from the current directory and makes sure the virtualenv exists.
    init() throws {
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("scripts/python-env").path) {
            guard folder.path != "/" else { throw Failure("run cashier-bench from the Cashier repository (scripts/python-env not found)") }
            folder.deleteLastPathComponent()
        }
        root = folder
        python = try Self.run(folder.appendingPathComponent("scripts/python-env").path, arguments: [], input: Data())
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `scripts/bench/<script>` with `input` as JSON on stdin; returns its one-number answer.
    /// - Parameter jsonFields: input values that are JSON text, passed to the script as JSON.
    func operationsPerSecond(script: String, input: [String: String], jsonFields: Set<String> = []) throws -> Double {
        var object: [String: Any] = input
        for name in jsonFields {
            object[name] = input[name].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        }
        let data = try JSONSerialization.data(withJSONObject: object)
        let output = try Self.run(python, arguments: [root.appendingPathComponent("scripts/bench/\(script)").path], input: data)
        guard let rate = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure("\(script) printed '\(output.prefix(200))' instead of a rate")
        }
        return rate
    }

    private static func run(_ executable: String, arguments: [String], input: Data) throws -> String {
        try Subprocess.run(executable, arguments, input: input)
    }

    typealias Failure = Subprocess.Failure
}

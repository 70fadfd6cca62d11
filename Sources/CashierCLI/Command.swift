import Cashier
public import Foundation

/// One command of the `cashier` tool: its options, its subcommands and what it does.
///
/// Commands are data, so `--help` is generated from the same declarations the parser uses.
public struct Command: Sendable {
    /// One `--name` option.
    public struct Option: Sendable {
        public let name: String
        /// Shown in help as `--name VALUE`; `nil` for a flag that takes no value.
        public let valueName: String?
        public let help: String
        public let isRequired: Bool
        /// A secret: never a value on the command line (every user sees it in `ps`, and shells keep
        /// it in their history), but `--NAME-file PATH` or `--NAME-env VARIABLE`.
        public let isSecret: Bool

        /// An option with a value (`--key KEY` or `--key=KEY`).
        public static func value(_ name: String, _ valueName: String, _ help: String, required: Bool = false) -> Option {
            Option(name: name, valueName: valueName, help: help, isRequired: required, isSecret: false)
        }

        /// A secret, read from a file (`--NAME-file PATH`, trailing newlines dropped) or an
        /// environment variable (`--NAME-env VARIABLE`): ``ParsedArguments/secret(_:)``.
        public static func secret(_ name: String, _ help: String, required: Bool = false) -> Option {
            Option(name: name, valueName: "PATH", help: help, isRequired: required, isSecret: true)
        }

        /// A flag (`--json`).
        public static func flag(_ name: String, _ help: String) -> Option {
            Option(name: name, valueName: nil, help: help, isRequired: false, isSecret: false)
        }

        /// How help shows it.
        var label: String {
            if isSecret { return "--\(name)-file PATH | --\(name)-env VAR" }
            return "--\(name)" + (valueName.map { " \($0)" } ?? "")
        }
    }

    /// What a running command may touch: its arguments, standard input and outputs.
    public typealias Action = @Sendable (ParsedArguments, CommandIO) async throws -> Int32

    public let name: String
    public let summary: String
    /// Extra text under the usage line (what stdin holds, exit codes …).
    public let discussion: String
    public let options: [Option]
    public let subcommands: [Command]
    public let action: Action?
    /// A command that moved: what runs it now (`the gateways are now 'cashier-sandbox gateways'`),
    /// said in one line with exit status 2 whatever options come with it. Its help still shows.
    package let movedTo: String?

    public init(
        name: String,
        summary: String,
        discussion: String = "",
        options: [Option] = [],
        subcommands: [Command] = [],
        action: Action? = nil
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.subcommands = subcommands
        self.action = action
        movedTo = nil
    }

    private init(name: String, summary: String, movedTo: String) {
        self.name = name
        self.summary = summary
        discussion = ""
        options = []
        subcommands = []
        action = { _, _ in CommandLineTool.usageError }
        self.movedTo = movedTo
    }

    /// A command that moved to another executable: `cashier NAME …` says where it went, in one
    /// line on stderr, and exits 2.
    package static func moved(_ name: String, to movedTo: String) -> Command {
        Command(name: name, summary: "Moved: \(movedTo).", movedTo: movedTo)
    }

    /// The help text for this command, reached by `path` (e.g. `["cashier", "wechat", "sign"]`).
    func help(path: [String]) -> String {
        var lines = [summary, ""]
        let fullName = path.joined(separator: " ")
        if subcommands.isEmpty {
            let usage = options.map { option in
                let text = option.isSecret ? "(\(option.label))" : option.label
                return option.isRequired ? text : "[\(text)]"
            }
            lines.append("Usage: " + ([fullName] + usage).joined(separator: " "))
        } else {
            lines.append("Usage: \(fullName) <command> [options]")
            lines.append("")
            lines.append("Commands:")
            let width = subcommands.map(\.name.count).max() ?? 0
            for command in subcommands {
                lines.append("  " + command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary)
            }
        }
        if !discussion.isEmpty {
            lines += ["", discussion]
        }
        let shown = options + [.flag("help", "Show this help.")]
        lines += ["", "Options:"]
        let labels = shown.map(\.label)
        let width = labels.map(\.count).max() ?? 0
        for (label, option) in zip(labels, shown) {
            lines.append("  " + label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + option.help)
        }
        if !subcommands.isEmpty {
            lines += ["", "Run '\(fullName) <command> --help' for a command's options."]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The options a command was given.
public struct ParsedArguments: Sendable {
    var values: [String: String]
    var flags: Set<String>

    /// The value of `--name`, or `nil`.
    public func value(_ name: String) -> String? { values[name] }

    /// `true` when `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of a required option (the parser has already checked it is there).
    public func required(_ name: String) -> String { values[name] ?? "" }

    /// The secret option `name`: the file `--NAME-file` names (trailing newlines dropped) or the
    /// variable `--NAME-env` names; `nil` when neither was given.
    /// - Throws: ``CommandFailure`` when the file cannot be read or the variable is unset or empty.
    public func secret(_ name: String) throws -> String? {
        if let path = values[name + "-file"] {
            let data: Data
            do {
                data = try UserFile.contents(path)
            } catch {
                throw CommandFailure("--\(name)-file: \(error)", status: 2)
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw CommandFailure("--\(name)-file: '\(path)' is empty", status: 2) }
            return text
        }
        if let variable = values[name + "-env"] {
            guard let text = environment[variable], !text.isEmpty else {
                throw CommandFailure("--\(name)-env: the environment variable \(variable) is not set", status: 2)
            }
            return text
        }
        return nil
    }

    /// A required secret (the parser has already checked one of its forms is there).
    public func requiredSecret(_ name: String) throws -> String { try secret(name) ?? "" }

    /// Where `--NAME-env` reads: ``CommandIO/environment``, set by the tool once parsed.
    var environment: [String: String] = [:]
}

/// Standard input, the two outputs and the environment `--NAME-env` reads, swappable so tests
/// can run commands in process (a test must not `setenv`: another thread starting a process
/// reads the environment at the same moment, and glibc's `environ` is not safe for that).
public struct CommandIO: Sendable {
    public let readInput: @Sendable () -> Data
    public let write: @Sendable (String) -> Void
    public let writeError: @Sendable (String) -> Void
    public let environment: [String: String]

    public init(
        readInput: @escaping @Sendable () -> Data,
        write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.readInput = readInput
        self.write = write
        self.writeError = writeError
        self.environment = environment
    }

    /// The process's own stdin, stdout and stderr.
    public static let standard = CommandIO(
        readInput: { (try? FileHandle.standardInput.readToEndRetrying()) ?? Data() },
        // Output that cannot be written (the reader has gone) is dropped, never a crash.
        write: { try? FileHandle.standardOutput.writeRetrying(Data($0.utf8)) },
        writeError: { try? FileHandle.standardError.writeRetrying(Data($0.utf8)) }
    )
}

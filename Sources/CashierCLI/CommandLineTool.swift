import Cashier
import Foundation

/// Parses a command line against the command tree and runs the chosen command.
///
/// Grammar: `cashier <command> [<subcommand> …] [--option VALUE | --option=VALUE | --flag …]`.
/// `--help` (or `-h`, or `help` as a command) prints the help of the deepest command named so
/// far. Exit status: what the command returns (0 success, 1 a check failed), 2 for usage errors —
/// among them a command group named without one of its commands (`cashier`, `cashier wechat`).
public enum CommandLineTool {
    /// Exit status for a command line that could not be understood.
    public static let usageError: Int32 = 2

    /// Runs `arguments` (without the program name) against `root`.
    public static func run(_ root: Command, arguments: [String], io: CommandIO) async -> Int32 {
        var command = root
        var path = [root.name]
        var remaining = arguments[...]
        while let next = remaining.first, !next.hasPrefix("-") {
            if next == "help" {
                io.write(command.help(path: path))
                return 0
            }
            guard let sub = command.subcommands.first(where: { $0.name == next }) else {
                if command.subcommands.isEmpty {
                    return fail("'\(path.joined(separator: " "))' takes no argument '\(next)'", path: path, io: io)
                }
                let guess = KeySuggestion.closest(to: next, among: command.subcommands.map(\.name)).map { ": did you mean '\($0)'?" }
                return fail("unknown command '\(next)' for '\(path.joined(separator: " "))'" + (guess ?? ""), path: path, io: io)
            }
            command = sub
            path.append(next)
            remaining = remaining.dropFirst()
        }
        if remaining.contains(where: { $0 == "--help" || $0 == "-h" }) {
            io.write(command.help(path: path))
            return 0
        }
        if let movedTo = command.movedTo {
            io.writeError("\(path.joined(separator: " ")): \(movedTo)\n")
            return usageError
        }
        guard let action = command.action else {
            // A group named without one of its commands is a usage error: a script that left the
            // command out must not read success. The help goes to stderr so stdout stays empty.
            if remaining.isEmpty {
                io.writeError("error: '\(path.joined(separator: " "))' needs a command\n\n" + command.help(path: path))
                return usageError
            }
            return fail("'\(path.joined(separator: " "))' needs a command", path: path, io: io)
        }
        var parsed: ParsedArguments
        do {
            parsed = try parse(Array(remaining), for: command)
            parsed.environment = io.environment
        } catch let error as UsageError {
            return fail(error.message, path: path, io: io)
        } catch {
            return fail("\(error)", path: path, io: io)
        }
        do {
            return try await action(parsed, io)
        } catch let error as CommandFailure {
            io.writeError("error: \(error.message)\n")
            return error.status
        } catch let error as PaymentError {
            // A provider check that failed (a bad signature, a wrong amount): one line, exit 1.
            io.writeError("error: \(error.message)\n")
            return 1
        } catch {
            io.writeError("error: \(error)\n")
            return 1
        }
    }

    static func parse(_ tokens: [String], for command: Command) throws -> ParsedArguments {
        var values: [String: String] = [:]
        var flags = Set<String>()
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard token.hasPrefix("--"), token.count > 2 else {
                throw UsageError(message: "unexpected argument '\(token)'")
            }
            var name = String(token.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let secret = command.options.first(where: { $0.isSecret && $0.name == name }) {
                throw UsageError(
                    message: "--\(secret.name) takes no value on the command line, where every user sees it (ps) and shells keep it: "
                        + "give --\(secret.name)-file PATH or --\(secret.name)-env VARIABLE")
            }
            let secretForm = command.options.first { $0.isSecret && (name == $0.name + "-file" || name == $0.name + "-env") }
            guard let option = secretForm ?? command.options.first(where: { $0.name == name && !$0.isSecret }) else {
                // Every name the command takes, a secret's -file and -env forms included.
                let names = command.options.flatMap { $0.isSecret ? [$0.name + "-file", $0.name + "-env"] : [$0.name] }
                let guess = KeySuggestion.closest(to: name, among: names).map { ": did you mean '--\($0)'?" }
                throw UsageError(message: "unknown option '--\(name)'" + (guess ?? ""))
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError(message: "'--\(name)' takes no value") }
                flags.insert(name)
            } else {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    index += 1
                    guard index < tokens.count else { throw UsageError(message: "'--\(name)' needs a value (\(option.valueName!))") }
                    value = tokens[index]
                }
                guard values[name] == nil else { throw UsageError(message: "'--\(name)' is given twice") }
                values[name] = value
            }
            index += 1
        }
        for option in command.options where option.isSecret {
            if values[option.name + "-file"] != nil && values[option.name + "-env"] != nil {
                throw UsageError(message: "give one of --\(option.name)-file and --\(option.name)-env")
            }
            if option.isRequired && values[option.name + "-file"] == nil && values[option.name + "-env"] == nil {
                throw UsageError(message: "missing required option \(option.label)")
            }
        }
        for option in command.options where option.isRequired && !option.isSecret && values[option.name] == nil {
            throw UsageError(message: "missing required option '--\(option.name) \(option.valueName ?? "")'")
        }
        return ParsedArguments(values: values, flags: flags)
    }

    private static func fail(_ message: String, path: [String], io: CommandIO) -> Int32 {
        io.writeError("error: \(message)\nRun '\(path.joined(separator: " ")) --help' for usage.\n")
        return usageError
    }

    struct UsageError: Error {
        let message: String
    }
}

/// A command that failed in an expected way: print one line and exit with `status`.
public struct CommandFailure: Error {
    public let message: String
    public let status: Int32

    public init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }
}

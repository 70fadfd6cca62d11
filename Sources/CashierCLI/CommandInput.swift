import Cashier
import Foundation

/// Helpers the provider commands share: reading stdin, key arguments and printing JSON.
package enum CommandInput {
    /// Standard input as text, without a trailing newline.
    package static func text(_ io: CommandIO) -> String {
        var text = String(decoding: io.readInput(), as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }

    /// Standard input as bytes, exactly as given.
    package static func bytes(_ io: CommandIO) -> [UInt8] {
        Array(io.readInput())
    }

    /// A PEM argument: inline PEM text, or the path of a file holding it.
    package static func pem(_ argument: String, option: String) throws -> String {
        if argument.contains("-----BEGIN") { return argument }
        let contents: Data
        do {
            contents = try UserFile.contents(argument)
        } catch {
            throw CommandFailure("--\(option): \(error) (give a PEM file path or the PEM text)", status: 2)
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// A key argument: PEM text, the path of a PEM file, or bare base64 DER (the Alipay console's form).
    package static func keyText(_ argument: String, option: String) throws -> String {
        guard !argument.contains("-----BEGIN"), FileManager.default.fileExists(atPath: argument) else { return argument }
        return try pem(argument, option: option)
    }

    /// A `--db` argument: a SQLite path, or a PostgreSQL URL without a password — one on the
    /// command line is visible to every user (`ps`); libpq reads it from `PGPASSWORD` or a
    /// password file (`~/.pgpass`, `PGPASSFILE`) instead.
    package static func database(_ argument: String?) throws -> String? {
        guard let argument, argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") else { return argument }
        if let components = URLComponents(string: argument), components.password != nil {
            throw CommandFailure(
                "--db: the URL carries a password, which every user can read in the process list: drop it from the URL and "
                    + "set PGPASSWORD or a password file (PGPASSFILE, ~/.pgpass) instead", status: 2)
        }
        if argument.contains("password=") {
            throw CommandFailure("--db: the URL carries password=…: set PGPASSWORD or a password file (PGPASSFILE) instead", status: 2)
        }
        return argument
    }

    /// A JSON object of parameters whose values are strings, integers or booleans. A refusal
    /// names what to fix: empty input, input that is not JSON (with the parser's position), JSON
    /// that is not an object, or the parameters whose values are of another kind.
    package static func parameters(_ io: CommandIO) throws -> [String: String] {
        struct Scalar: Decodable {
            let text: String?
            let kind: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let string = try? container.decode(String.self) {
                    (text, kind) = (string, "a string")
                } else if let integer = try? container.decode(Int64.self) {
                    (text, kind) = (String(integer), "an integer")
                } else if let bool = try? container.decode(Bool.self) {
                    (text, kind) = (bool ? "true" : "false", "a boolean")
                } else if container.decodeNil() {
                    (text, kind) = (nil, "null")
                } else if (try? container.decode(Double.self)) != nil {
                    (text, kind) = (nil, "a number that is not an integer (or beyond 64 bits): give amounts in minor units, or quote it")
                } else if (try? container.decode([String: Scalar].self)) != nil {
                    (text, kind) = (nil, "an object")
                } else {
                    (text, kind) = (nil, "an array")
                }
            }
        }
        let input = io.readInput()
        let usage = "give a JSON object of parameters on stdin, e.g. {\"body\":\"Tee\",\"total_fee\":2550}"
        if input.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw CommandFailure("stdin is empty: \(usage)")
        }
        let whole: Any
        do {
            whole = try JSONSerialization.jsonObject(with: input, options: [.fragmentsAllowed])
        } catch {
            throw CommandFailure("stdin is not valid JSON (\(UserFile.parserWords(error, in: input))): \(usage)")
        }
        guard whole is [String: Any], let object = try? JSONDecoder().decode([String: Scalar].self, from: input) else {
            throw CommandFailure("stdin holds JSON that is not an object: \(usage)")
        }
        let refused = object.filter { $0.value.text == nil }.sorted { $0.key < $1.key }
        guard refused.isEmpty else {
            let list = refused.map { "\"\($0.key)\" is \($0.value.kind)" }.joined(separator: "; ")
            throw CommandFailure("stdin: \(list); parameter values must be strings, integers or booleans")
        }
        return object.compactMapValues(\.text)
    }

    /// Prints a JSON object with sorted keys.
    /// Prints `value` as one line of JSON, keys sorted, as `printJSON` prints an object.
    package static func printEncodedJSON(_ value: some Encodable, _ io: CommandIO) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        io.write(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
    }

    package static func printJSON(_ object: Any, _ io: CommandIO) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        io.write(String(decoding: data, as: UTF8.self) + "\n")
    }
}

public import CashierHTTP
public import Foundation

/// The server's log: one line per event on standard error (or wherever ``init(format:write:)``
/// sends it) — the access log's entries, each call to a provider, the doctor's findings at start,
/// reloads. Lines carry only explicitly safe fields: never a body, a header value, a query, a
/// key or a card number.
///
/// ```swift
/// let log = ServerLog(format: .json) { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
/// log.record("reload", ["result": "applied"])
/// ```
public struct ServerLog: Sendable {
    /// How each line is written.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-12-07T05:15:00Z reload result=applied`: for people.
        case text
        /// `{"event":"reload","result":"applied","time":"2026-12-07T05:15:00Z"}`: for a collector.
        case json
    }

    /// A field's value.
    public enum Value: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case string(String)
        case int(Int)
        case double(Double)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int) { self = .int(value) }

        var json: Any {
            switch self {
            case .string(let text): text
            case .int(let number): number
            case .double(let number): number
            }
        }

        var text: String {
            switch self {
            case .string(let text): text.contains(" ") || text.isEmpty ? "\"" + text.replacingOccurrences(of: "\"", with: "'") + "\"" : text
            case .int(let number): String(number)
            case .double(let number): String(number)
            }
        }
    }

    public let format: Format
    private let write: @Sendable (String) -> Void
    /// When each line happened (tests give a fixed one).
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - format: text or JSON lines.
    ///   - now: the time each line is stamped with.
    ///   - write: takes each line, without its newline.
    public init(format: Format, now: @escaping @Sendable () -> Date = { Date() }, write: @escaping @Sendable (String) -> Void) {
        self.format = format
        self.now = now
        self.write = write
    }

    /// Writes one event with `fields` (each a safe value: never a secret or a body).
    public func record(_ event: String, _ fields: [String: Value] = [:]) {
        write(line(event, fields))
    }

    /// Writes a line made already (by another log's ``line(_:_:)``).
    func record(line: String) {
        write(line)
    }

    /// The line ``record(_:_:)`` writes.
    func line(_ event: String, _ fields: [String: Value]) -> String {
        let time = ISO8601DateFormatter().string(from: now())
        switch format {
        case .json:
            var object = fields.mapValues(\.json)
            object["event"] = event
            object["time"] = time
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        case .text:
            return ([time, event] + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.text)" }).joined(separator: " ")
        }
    }

    /// Writes an access-log entry (`event` `access` in JSON; the entry's own line in text).
    public func access(_ entry: AccessLogEntry) {
        switch format {
        case .json:
            var fields: [String: Value] = [
                "method": .string(entry.method), "path": .string(entry.path), "status": .int(entry.status),
                "bytes_in": .int(entry.requestBytes), "bytes_out": .int(entry.responseBytes), "ms": .double(entry.milliseconds),
            ]
            if let id = entry.requestID { fields["request_id"] = .string(id) }
            record("access", fields)
        case .text:
            write(ISO8601DateFormatter().string(from: now()) + " " + entry.textLine)
        }
    }
}

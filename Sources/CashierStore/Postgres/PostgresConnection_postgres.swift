internal import CPostgres
import Dispatch
import Foundation

/// One libpq connection: parameterised statements only (`?` placeholders rewritten to `$n`),
/// typed results, and errors that say what failed. Each connection has its own serial queue, so
/// a statement waiting on the network or a commit's fsync blocks that queue's thread, never one
/// of Swift's cooperative threads. Used by one transaction at a time: ``ConnectionPool`` hands it
/// out exclusively, which is why it may cross tasks.
final class PostgresConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    let queue: DispatchQueue
    private(set) var changes = 0

    /// - Throws: `StoreError.unavailable` saying what to fix (host, password, database).
    init(url: String) throws {
        guard let handle = PQconnectdb(url) else { throw StoreError(.unavailable, "libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw StoreError(.unavailable, "cannot connect to PostgreSQL at \(Self.redacted(url)): \(message)")
        }
        // NOTICEs ("relation already exists, skipping") are not errors: keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        self.handle = handle
        queue = DispatchQueue(label: "cashier.postgres")
    }

    deinit {
        PQfinish(handle)
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "****"
        return components.string ?? "the configured database"
    }

    /// Whether the connection is still usable (it may have been dropped by the server).
    var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK && !stuckInPipeline }

    /// Set if the connection could not leave pipeline mode: every later statement would fail on
    /// it, so the pool closes it instead of handing it out again.
    private var stuckInPipeline = false

    var lockingClause: String { " FOR UPDATE" }

    func execute(_ sql: String) throws {
        try sendPendingBegin()
        try run(sql)
    }

    /// One simple-protocol statement, now.
    private func run(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
    }

    /// Whether `BEGIN` waits to go out with the transaction's first statement.
    private var beginPending = false

    /// Starts a transaction without a round trip of its own: `BEGIN` is sent in one pipeline with
    /// the first statement (libpq's pipeline mode), and a transaction that runs no statement
    /// sends nothing. Each round trip is a wake-up of this thread and of the server's backend.
    func begin() {
        beginPending = true
    }

    /// Ends the transaction `begin()` started, keeping its changes (nothing is sent if it ran no statement).
    func commit() throws {
        if beginPending { beginPending = false } else { try run("COMMIT") }
    }

    /// Ends the transaction `begin()` started, undoing its changes (nothing is sent if it ran no statement).
    func rollback() throws {
        if beginPending { beginPending = false } else { try run("ROLLBACK") }
    }

    /// `BEGIN` on its own, for a statement that cannot share a pipeline with it.
    private func sendPendingBegin() throws {
        guard beginPending else { return }
        beginPending = false
        try run("BEGIN")
    }

    /// Statements prepared on this connection, by their text: the server parses and plans each
    /// once per connection instead of on every call.
    private var prepared: [String: String] = [:]
    /// The number in the next statement's name: it only grows (until `DEALLOCATE ALL`), so a name
    /// is never prepared twice on a session even after the cache forgets an entry.
    private var nextStatement = 1
    static let maximumPreparedStatements = 256

    /// The name `sql` is prepared under on this connection (preparing it now if it is new).
    private func statementName(_ sql: String, text: String, types: [Oid]) throws -> String {
        if let name = prepared[sql] { return name }
        if prepared.count >= Self.maximumPreparedStatements {
            try run("DEALLOCATE ALL")
            prepared.removeAll()
            nextStatement = 1
        }
        let name = "cashier_\(nextStatement)"
        nextStatement += 1
        guard let result = PQprepare(handle, name, text, Int32(types.count), types) else { throw failure(nil) }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
        prepared[sql] = name
        return name
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        let text = prepared[sql] == nil ? Self.numbered(sql) : ""
        // Text parameters, except bytea, which goes binary (no escaping).
        var owned: [[UInt8]] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var types: [Oid] = []
        for value in parameters {
            switch value {
            case .null:
                owned.append([])
                lengths.append(0)
                formats.append(0)
                types.append(0)
            case .integer(let number):
                owned.append(Array(String(number).utf8) + [0])
                lengths.append(0)
                formats.append(0)
                types.append(20)
            case .text(let string):
                owned.append(Array(string.utf8) + [0])
                lengths.append(0)
                formats.append(0)
                types.append(0)
            case .blob(let bytes):
                owned.append(bytes)
                lengths.append(Int32(bytes.count))
                formats.append(1)
                types.append(17)
            }
        }
        let name = try statementName(sql, text: text, types: types)
        let executed = try withPointers(owned, parameters) { pointers in
            try beginPending
                ? beginAndExecute(name, pointers, lengths, formats)
                : PQexecPrepared(handle, name, Int32(parameters.count), pointers, lengths, formats, 0)
        }
        guard let result = executed else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let error = failure(result)
            // The session lost its prepared statements (SQLSTATE 26000): prepare again on the retry.
            // A serialisation failure or a deadlock leaves them in place.
            if Self.state(of: result) == "26000" { prepared.removeAll() }
            throw error
        }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        let rows = PQntuples(result)
        let columns = PQnfields(result)
        var values: [[SQLValue]] = []
        values.reserveCapacity(Int(rows))
        for row in 0..<rows {
            var line: [SQLValue] = []
            for column in 0..<columns {
                if PQgetisnull(result, row, column) == 1 {
                    line.append(.null)
                    continue
                }
                let raw = String(cString: PQgetvalue(result, row, column))
                switch PQftype(result, column) {
                case 20, 21, 23: line.append(Int64(raw).map { .integer($0) } ?? .null)
                case 16: line.append(.integer(raw == "t" ? 1 : 0))
                case 17: line.append(.blob(Self.bytea(raw)))
                default: line.append(.text(raw))
                }
            }
            values.append(line)
        }
        return values
    }

    /// The pending `BEGIN` and the prepared statement `name` in one pipeline: one round trip for
    /// both. Throws if `BEGIN` failed; returns the statement's result (`nil` if the connection failed).
    private func beginAndExecute(_ name: String, _ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32]) throws
        -> OpaquePointer?
    {
        guard PQenterPipelineMode(handle) == 1 else {
            try sendPendingBegin()  // not possible now: one after the other
            return PQexecPrepared(handle, name, Int32(values.count), values, lengths, formats, 0)
        }
        beginPending = false
        defer { if PQexitPipelineMode(handle) != 1 { stuckInPipeline = true } }
        guard PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0) == 1,
            PQsendQueryPrepared(handle, name, Int32(values.count), values, lengths, formats, 0) == 1, PQpipelineSync(handle) == 1
        else { throw failure(nil) }
        // Each statement's result is followed by a NULL; the sync point's result ends the pipeline.
        var results: [OpaquePointer] = []
        var separators = 0
        while separators <= 2 {
            guard let result = PQgetResult(handle) else {
                separators += 1
                if PQstatus(handle) != CONNECTION_OK { break }
                continue
            }
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            results.append(result)
        }
        for extra in results.dropFirst(2) { PQclear(extra) }
        let executed = results.count > 1 ? results[1] : nil
        guard let begun = results.first else { throw failure(nil) }
        defer { PQclear(begun) }
        guard PQresultStatus(begun) == PGRES_COMMAND_OK else {
            PQclear(executed)
            throw failure(begun)
        }
        return executed
    }

    private func withPointers<R>(_ owned: [[UInt8]], _ parameters: [SQLValue], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows
        -> R
    {
        // Each buffer stays alive (and pinned) for the call.
        var pointers: [UnsafePointer<CChar>?] = []
        func nest(_ index: Int) throws -> R {
            guard index < owned.count else { return try body(pointers) }
            if case .null = parameters[index] {
                pointers.append(nil)
                return try nest(index + 1)
            }
            return try owned[index].withUnsafeBufferPointer { buffer in
                try buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(buffer.count, 1)) { pointer in
                    pointers.append(pointer)
                    return try nest(index + 1)
                }
            }
        }
        return try nest(0)
    }

    /// `?` → `$1`, `$2`, … outside quoted strings.
    static func numbered(_ sql: String) -> String {
        var output = ""
        var number = 0
        var quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?" && !quoted {
                number += 1
                output += "$\(number)"
            } else {
                output.append(character)
            }
        }
        return output
    }

    /// bytea's hex output, `\x0a1b…`.
    static func bytea(_ text: String) -> [UInt8] {
        guard text.hasPrefix("\\x") else { return Array(text.utf8) }
        var bytes: [UInt8] = []
        var high: UInt8?
        for unit in text.utf8.dropFirst(2) {
            guard let nibble = Self.nibble(unit) else { continue }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    private static func nibble(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The SQLSTATE of a failed result (`""` when there is none).
    private static func state(of result: OpaquePointer?) -> String {
        result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
    }

    /// The error for a failed statement: SQLSTATE decides the code (unique violation: conflict;
    /// serialisation failure, deadlock or a prepared statement the session lost: busy, retried; a
    /// dropped connection: unavailable, retried).
    private func failure(_ result: OpaquePointer?) -> StoreError {
        let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        guard PQstatus(handle) == CONNECTION_OK else {
            return StoreError(.unavailable, "the PostgreSQL connection was lost: \(message)")
        }
        let state = Self.state(of: result)
        switch state {
        case "23505": return StoreError(.conflict, "PostgreSQL: \(message)")
        case "40001", "40P01", "26000": return StoreError(.busy, "PostgreSQL: \(message)")
        case let code where code.hasPrefix("08"): return StoreError(.unavailable, "PostgreSQL: \(message)")
        default: return StoreError(.failed, "PostgreSQL (\(state)): \(message)")
        }
    }
}

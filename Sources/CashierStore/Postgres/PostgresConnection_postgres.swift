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

    var dialect: SQLDialect { .postgres }

    var lockingClause: String { " FOR UPDATE" }

    /// Statements that return no rows, several separated by `;` — which a pipeline cannot carry,
    /// so what is waiting goes out first (in one pipeline of its own) and `sql` after it.
    func execute(_ sql: String) throws {
        if let last = pending.popLast() { try checked(try sendPending(then: .simple(last))) }
        try run(sql)
    }

    /// One simple-protocol statement, now.
    private func run(_ sql: String) throws {
        try checked(PQexec(handle, sql))
    }

    /// A statement's result that must be a success: cleared, or thrown as the failure it reports.
    private func checked(_ result: OpaquePointer?) throws {
        guard let result else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
    }

    /// Statements that go out in one pipeline (libpq's pipeline mode) with the next statement, or
    /// with the commit: the transaction's `BEGIN`, and the savepoints around each transaction of
    /// a group commit. Each round trip is a wake-up of this thread and of the server's backend.
    private var pending: [String] = []
    /// Whether the transaction's `BEGIN` has gone out (it ran a statement).
    private var begun = false

    /// Starts a transaction without a round trip of its own: `BEGIN` goes out with the first
    /// statement, and a transaction that runs no statement sends nothing.
    func begin() {
        pending = ["BEGIN"]
        begun = false
    }

    /// Sends `sql` (a statement that returns no rows) with the next statement, or with the commit.
    func sendWithNext(_ sql: String) {
        pending.append(sql)
    }

    /// Takes `sql` back if it is the last statement still waiting to go out (nothing ran after
    /// it was queued, so sending it would be a round trip for nothing). - Returns: whether it was.
    func withdraw(_ sql: String) -> Bool {
        guard pending.last == sql else { return false }
        pending.removeLast()
        return true
    }

    /// Ends the transaction `begin()` started, keeping its changes: what is still waiting and
    /// `COMMIT` in one round trip (nothing at all if the transaction ran no statement).
    /// If it throws, the transaction may still be open (a statement queued before `COMMIT` failed,
    /// and `COMMIT` was skipped): ``rollback()`` ends it.
    func commit() throws {
        guard begun else {
            pending = []
            return
        }
        guard let result = try sendPending(then: .simple("COMMIT")) else { throw failure(nil) }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
        // PostgreSQL answers COMMIT in a transaction an error aborted with a successful ROLLBACK:
        // a failure, or a caller would report changes that were undone.
        guard String(cString: PQcmdStatus(result)) == "COMMIT" else {
            begun = false
            throw StoreError(.busy, "PostgreSQL rolled the transaction back at COMMIT: a statement in it had failed")
        }
        begun = false
    }

    /// Ends the transaction `begin()` started, undoing its changes (nothing is sent if it ran no statement).
    func rollback() throws {
        pending = []
        guard begun else { return }
        begun = false
        try run("ROLLBACK")
    }

    /// What ends a pipeline: a simple statement that returns no rows, or a prepared one with its parameters.
    private enum Last {
        case simple(String)
        case prepared(name: String, values: [UnsafePointer<CChar>?], lengths: [Int32], formats: [Int32])

        /// A simple statement's text.
        var text: String? {
            if case .simple(let sql) = self { sql } else { nil }
        }
    }

    /// The waiting statements, then `last`, in one pipeline: one round trip for all (one after the
    /// other where pipeline mode is not possible). Throws if a waiting statement failed; returns
    /// `last`'s result for the caller to check and clear (`nil` if the connection failed).
    private func sendPending(then last: Last) throws -> OpaquePointer? {
        let statements = pending
        pending = []
        if (statements.first ?? last.text) == "BEGIN" { begun = true }
        guard !statements.isEmpty, PQenterPipelineMode(handle) == 1 else {
            for statement in statements { try run(statement) }
            switch last {
            case .simple(let sql): return PQexec(handle, sql)
            case .prepared(let name, let values, let lengths, let formats):
                return PQexecPrepared(handle, name, Int32(values.count), values, lengths, formats, 0)
            }
        }
        defer { if PQexitPipelineMode(handle) != 1 { stuckInPipeline = true } }
        for statement in statements {
            guard PQsendQueryParams(handle, statement, 0, nil, nil, nil, nil, 0) == 1 else { throw failure(nil) }
        }
        let sent =
            switch last {
            case .simple(let sql): PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0)
            case .prepared(let name, let values, let lengths, let formats):
                PQsendQueryPrepared(handle, name, Int32(values.count), values, lengths, formats, 0)
            }
        guard sent == 1, PQpipelineSync(handle) == 1 else { throw failure(nil) }
        // Each statement's result is followed by a NULL; a statement after a failed one gives
        // PGRES_PIPELINE_ABORTED; the sync point's result ends the pipeline.
        var results: [OpaquePointer] = []
        var separators = 0
        while separators <= statements.count + 1 {
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
        let outcome = results.count > statements.count ? results[statements.count] : nil
        for extra in results.dropFirst(statements.count + 1) { PQclear(extra) }
        let before = results.prefix(statements.count)
        defer { for result in before { PQclear(result) } }
        guard before.count == statements.count else {
            PQclear(outcome)
            throw failure(nil)
        }
        if let failed = before.first(where: { PQresultStatus($0) != PGRES_COMMAND_OK }) {
            PQclear(outcome)
            throw failure(failed)
        }
        return outcome
    }

    /// Statements prepared on this connection, by their text: the server parses and plans each
    /// once per connection instead of on every call.
    private var prepared: [String: Prepared] = [:]
    /// A statement's name on this connection and, once it has answered, the names of the columns
    /// it returns (read from its first result, and shared by every row of every later one).
    private struct Prepared {
        let name: String
        var columns: SQLColumnIndex?
    }
    /// The number in the next statement's name: it only grows (until `DEALLOCATE ALL`), so a name
    /// is never prepared twice on a session even after the cache forgets an entry.
    private var nextStatement = 1
    static let maximumPreparedStatements = 256

    /// The name `sql` is prepared under on this connection (preparing it now if it is new).
    private func statementName(_ sql: String, text: String, types: [Oid]) throws -> String {
        if let known = prepared[sql] { return known.name }
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
        prepared[sql] = Prepared(name: name)
        return name
    }

    /// The columns `result` of statement `sql` returns: from the cache, or read from it now and kept.
    private func columns(of result: OpaquePointer, _ sql: String) -> SQLColumnIndex {
        if let known = prepared[sql]?.columns { return known }
        let count = PQnfields(result)
        let columns =
            count == 0 ? SQLColumnIndex.none : SQLColumnIndex(names: (0..<count).map { String(cString: PQfname(result, $0)) })
        prepared[sql]?.columns = columns
        return columns
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        let text = prepared[sql] == nil ? Self.numbered(sql) : ""
        let encoded = Parameters(parameters)
        let name = try statementName(sql, text: text, types: encoded.types)
        let executed = try withPointers(encoded.owned, parameters) { pointers in
            try sendPending(then: .prepared(name: name, values: pointers, lengths: encoded.lengths, formats: encoded.formats))
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
        let index = self.columns(of: result, sql)
        let columns = PQnfields(result)
        var values: [SQLRow] = []
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
            values.append(SQLRow(values: line, index: index))
        }
        return values
    }

    /// A statement's parameters as libpq takes them: text, except bytea, which goes binary (no escaping).
    private struct Parameters {
        var owned: [[UInt8]] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var types: [Oid] = []

        init(_ parameters: [SQLValue]) {
            for value in parameters {
                switch value {
                case .null: add([], type: 0)
                case .integer(let number): add(Array(String(number).utf8) + [0], type: 20)
                case .text(let string): add(Array(string.utf8) + [0], type: 0)
                case .blob(let bytes): add(bytes, type: 17, length: Int32(bytes.count), format: 1)
                }
            }
        }

        private mutating func add(_ bytes: [UInt8], type: Oid, length: Int32 = 0, format: Int32 = 0) {
            owned.append(bytes)
            lengths.append(length)
            formats.append(format)
            types.append(type)
        }
    }

    /// Rows a streamed read (``stream(_:_:_:)``) fetches at a time: a round trip each, and the
    /// memory of one batch.
    static let streamBatch: Int32 = 5_000

    /// A cursor in a read-only transaction of its own (one snapshot), fetched ``streamBatch`` rows
    /// at a time: libpq 15 has no chunked row mode, and its single-row mode makes a result a row.
    /// - Throws: when called inside a transaction, whose statements it would commit.
    func stream(_ sql: String, _ parameters: [SQLValue], _ row: (any StreamedRow) throws -> Void) throws {
        guard pending.isEmpty, !begun else { throw StoreError(.failed, "a streamed read runs outside any transaction") }
        try run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let encoded = Parameters(parameters)
            let declare = "DECLARE cashier_stream NO SCROLL CURSOR FOR " + Self.numbered(sql)
            try checked(
                withPointers(encoded.owned, parameters) { pointers in
                    PQexecParams(
                        handle, declare, Int32(pointers.count), encoded.types, pointers, encoded.lengths, encoded.formats, 0)
                })
            while true {
                guard let result = PQexec(handle, "FETCH \(Self.streamBatch) FROM cashier_stream") else { throw failure(nil) }
                defer { PQclear(result) }
                guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw failure(result) }
                let count = PQntuples(result)
                for index in 0..<count { try row(Row(result: result, index: index)) }
                if count < Self.streamBatch { break }
            }
            try run("COMMIT")
        } catch {
            if isHealthy { try? run("ROLLBACK") }
            throw error
        }
    }

    /// A row of a fetched batch, read in place (libpq's text format).
    private struct Row: StreamedRow {
        let result: OpaquePointer
        let index: Int32

        func bytes(_ column: Int) -> UnsafeBufferPointer<UInt8>? {
            let field = Int32(column)
            guard PQgetisnull(result, index, field) == 0, let value = PQgetvalue(result, index, field) else { return nil }
            let count = Int(PQgetlength(result, index, field))
            return UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: count)
        }

        func integer(_ column: Int) -> Int64? {
            guard let digits = bytes(column), let first = digits.first else { return nil }
            if digits.count == 1 && (first == 0x74 || first == 0x66) { return first == 0x74 ? 1 : 0 }  // a boolean's t, f
            // Summed below zero, where Int64 reaches one further (its minimum), and turned round at the end.
            let negative = first == 0x2D
            var value: Int64 = 0
            for digit in digits.dropFirst(negative ? 1 : 0) {
                guard digit >= 0x30 && digit <= 0x39 else { return nil }
                let (shifted, over) = value.multipliedReportingOverflow(by: 10)
                let (sum, overAgain) = shifted.subtractingReportingOverflow(Int64(digit - 0x30))
                guard !over && !overAgain else { return nil }
                value = sum
            }
            guard digits.count > (negative ? 1 : 0) else { return nil }
            return negative ? value : (value == .min ? nil : -value)
        }
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
    /// serialisation failure, deadlock, a lock not had within `lock_timeout`, a prepared statement
    /// the session lost, or a transaction an earlier statement in its group commit aborted: busy, retried; a
    /// dropped connection: unavailable, retried).
    /// The message is the result's own when it has one: in a pipeline the connection's message
    /// is often empty (a lock timeout's came out as "PostgreSQL: " and nothing else).
    private func failure(_ result: OpaquePointer?) -> StoreError {
        let own = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        let message = (own.isEmpty ? String(cString: PQerrorMessage(handle)) : own).trimmingCharacters(in: .whitespacesAndNewlines)
        guard PQstatus(handle) == CONNECTION_OK else {
            return StoreError(.unavailable, "the PostgreSQL connection was lost: \(message)")
        }
        let state = Self.state(of: result)
        switch state {
        case "23505": return StoreError(.conflict, "PostgreSQL: \(message)")
        case "40001", "40P01", "26000", "55P03", "25P02": return StoreError(.busy, "PostgreSQL: \(message)")
        case let code where code.hasPrefix("08"): return StoreError(.unavailable, "PostgreSQL: \(message)")
        default: return StoreError(.failed, "PostgreSQL (\(state)): \(message)")
        }
    }
}

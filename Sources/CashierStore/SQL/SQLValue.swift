/// A value bound to or read from a SQL statement, the same for SQLite and PostgreSQL.
enum SQLValue: Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    var text: String? { if case .text(let value) = self { value } else { nil } }
    var blob: [UInt8]? { if case .blob(let value) = self { value } else { nil } }

    /// What the value holds, for messages: `NULL`, `an integer`, `text` or `a blob`.
    var kind: String {
        switch self {
        case .null: "NULL"
        case .integer: "an integer"
        case .text: "text"
        case .blob: "a blob"
        }
    }

    /// The value as `kind` (`\.integer`, `\.text`, `\.blob`); `nil` when it is `NULL`.
    /// - Parameter column: names the column in the error (`payments.amount_minor`).
    /// - Throws: `StoreError.failed` when it holds another kind: a column whose type changed is
    ///   an error, never a value read as missing.
    @inline(__always)
    func read<T>(_ kind: KeyPath<SQLValue, T?>, column: @autoclosure () -> String) throws -> T? {
        if case .null = self { return nil }
        guard let value = self[keyPath: kind] else {
            throw StoreError(.failed, "\(column()) holds \(self.kind), not the kind of value its record reads")
        }
        return value
    }

    /// The value as `kind`, which must be there.
    /// - Throws: `StoreError.failed` when it is `NULL` or holds another kind.
    @inline(__always)
    func required<T>(_ kind: KeyPath<SQLValue, T?>, column: @autoclosure () -> String) throws -> T {
        guard let value = try read(kind, column: column()) else {
            throw StoreError(.failed, "\(column()) is NULL in a row that must have it")
        }
        return value
    }
}

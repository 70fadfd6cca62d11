/// One row of a statement's result, read by column name: `try row.required("n", \.integer)`,
/// `try row.text("holder")`. A record's row is read through its column enum instead
/// (``fields(_:prefix:)``), which looks each name up once per statement rather than once per read.
///
/// A column the statement does not return, or one holding another kind of value than the read
/// asks for, is an error that names it: never `nil`, never another column's value.
struct SQLRow: Sendable {
    /// The values, in the order of ``index``'s names.
    let values: [SQLValue]
    /// The statement's columns, shared by all its rows.
    let index: SQLColumnIndex

    /// The value of the column named `name`.
    /// - Throws: `StoreError.failed` when the statement returns no such column.
    func value(_ name: String) throws -> SQLValue {
        guard let position = index.position(of: name), position < values.count else {
            throw StoreError(.failed, "the row has no column \(name): the statement returned \(index.described)")
        }
        return values[position]
    }

    /// The value of `name` as `kind` (`\.integer`, `\.text`, `\.blob`), which must be there.
    /// - Throws: `StoreError.failed` when the column is absent, `NULL`, or holds another kind.
    func required<T>(_ name: String, _ kind: KeyPath<SQLValue, T?>) throws -> T {
        try value(name).required(kind, column: "column \(name)")
    }

    /// The text in `name`; `nil` when it is `NULL`. - Throws: as ``required(_:_:)`` but for `NULL`.
    func text(_ name: String) throws -> String? { try value(name).read(\.text, column: "column \(name)") }

    /// The integer in `name`; `nil` when it is `NULL`. - Throws: as ``required(_:_:)`` but for `NULL`.
    func integer(_ name: String) throws -> Int64? { try value(name).read(\.integer, column: "column \(name)") }

    /// The bytes in `name`; `nil` when it is `NULL`. - Throws: as ``required(_:_:)`` but for `NULL`.
    func blob(_ name: String) throws -> [UInt8]? { try value(name).read(\.blob, column: "column \(name)") }

    /// This row read as `Column`'s record: each case's column found by name (with `prefix`
    /// before it, for the second table of a join), once per statement.
    func fields<Column: SQLColumn>(_ column: Column.Type, prefix: String = "") -> SQLFields<Column> {
        SQLFields(row: self, positions: index.positions(of: column, prefix: prefix), prefix: prefix)
    }
}

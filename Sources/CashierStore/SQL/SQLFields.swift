/// A row read as one record's columns (``SQLColumn``): `try fields.required(.amountMinor, \.integer)`.
/// Each case's place in the row was resolved by name once for the statement
/// (``SQLColumnIndex/positions(of:prefix:)``), so a read costs two array lookups.
struct SQLFields<Column: SQLColumn> {
    let row: SQLRow
    /// By case raw value, the position of its column in `row` (`-1`: the statement has none).
    let positions: [Int]
    /// Put before each column's name in the select list (a join's second table).
    let prefix: String

    /// The value of `column`.
    /// - Throws: `StoreError.failed` naming the column when the statement does not return it
    ///   (a column renamed or left out of a select list is an error, not a missing value).
    @inline(__always)
    func value(_ column: Column) throws -> SQLValue {
        let position = positions[column.rawValue]
        guard position >= 0, position < row.values.count else {
            throw StoreError(
                .failed,
                "a \(Column.table) row has no column \(prefix)\(column.name): the statement returned \(row.index.described)")
        }
        return row.values[position]
    }

    /// The value of `column` as `kind` (`\.integer`, `\.text`, `\.blob`), which must be there.
    /// - Throws: `StoreError.failed` when the column is absent, `NULL`, or holds another kind.
    @inline(__always)
    func required<T>(_ column: Column, _ kind: KeyPath<SQLValue, T?>) throws -> T {
        try value(column).required(kind, column: label(column))
    }

    /// The value of `column` as `kind`, made into a `U` by `convert` (a status, a currency).
    /// - Throws: as ``required(_:_:)``, and when `convert` does not know the value.
    func required<T, U>(_ column: Column, _ kind: KeyPath<SQLValue, T?>, as convert: (T) -> U?) throws -> U {
        let value = try required(column, kind)
        guard let converted = convert(value) else {
            throw StoreError(.failed, "\(label(column)) holds '\(value)', which this version does not know as a \(U.self)")
        }
        return converted
    }

    /// The text in `column`; `nil` when it is `NULL`. - Throws: as ``required(_:_:)`` but for `NULL`.
    @inline(__always)
    func text(_ column: Column) throws -> String? { try value(column).read(\.text, column: label(column)) }

    /// The integer in `column`; `nil` when it is `NULL`. - Throws: as ``required(_:_:)`` but for `NULL`.
    @inline(__always)
    func integer(_ column: Column) throws -> Int64? { try value(column).read(\.integer, column: label(column)) }

    /// `payments.amount_minor`, for messages.
    private func label(_ column: Column) -> String { "\(Column.table).\(column.name)" }
}

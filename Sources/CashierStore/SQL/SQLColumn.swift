/// The columns of a table that one kind of record is read from, in the order of its select
/// list. The select list is generated from the cases (``selectList(from:prefix:)``) and each row
/// is read back by name (``SQLRow/fields(_:prefix:)``), so the statement and the decoding cannot
/// drift apart, and nothing selects `*`.
///
/// A case's raw value is its place in the enum (the cases take the default `0, 1, 2, …`): what a
/// row's fields are looked up by once the statement's columns have been resolved by name, an
/// array index where a name would be hashed for every field of every row.
///
/// ```swift
/// enum JobLeaseColumn: Int, SQLColumn {
///     case job, holder
///     static let table = "job_leases"
///     var name: String {
///         switch self {
///         case .job: "job"
///         case .holder: "holder"
///         }
///     }
/// }
/// let rows = try connection.query("SELECT \(JobLeaseColumn.selectList()) FROM job_leases", [])
/// let holder = try rows.first?.fields(JobLeaseColumn.self).text(.holder)
/// ```
protocol SQLColumn: RawRepresentable<Int>, CaseIterable, Sendable where AllCases == [Self] {
    /// The column's name in SQL.
    var name: String { get }
    /// The table the columns belong to, for messages.
    static var table: String { get }
}

extension SQLColumn {
    /// Every column, in order: `id, order_id, …`; read from `alias` (`p.id, p.order_id, …`); and
    /// named with `prefix` (`o.id AS "order.id", …`) when a join's second table has names the
    /// first one has too. Read the rows back with the same `prefix`.
    static func selectList(from alias: String? = nil, prefix: String = "") -> String {
        allCases.map { column in
            let source = alias.map { "\($0).\(column.name)" } ?? column.name
            return prefix.isEmpty ? source : "\(source) AS \"\(prefix)\(column.name)\""
        }.joined(separator: ", ")
    }
}

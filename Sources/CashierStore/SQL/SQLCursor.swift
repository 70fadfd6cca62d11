/// Where a list page's cursor stands: the record named by the last id of the page before (its
/// creation time and insertion order), which the next page continues after.
///
/// A cursor that names no record is an error, not an empty page: an empty page says "that was
/// the last one", and a client paging with a mistyped or foreign id would stop early and believe
/// it had everything. The record need not match the list's filters (an order paid since the page
/// before still marks the place in a list of pending ones).
struct SQLCursor {
    let created: Int64
    let rowid: Int64

    /// - Parameters:
    ///   - table: `orders`, `payments`, `refunds` or `outbox`.
    ///   - merchant: only a record of this sub-merchant's orders is a place in its lists.
    /// - Throws: `StoreError.notFound` naming the id, when there is no such record (for `merchant`).
    init(_ id: String, table: String, merchant: String?, _ connection: any SQLConnection) throws {
        var sql = "SELECT created_at, rowid AS cursor_rowid FROM \(table) WHERE id = ?"
        var parameters: [SQLValue] = [.text(id)]
        if let merchant {
            sql += table == "orders" ? " AND merchant = ?" : " AND order_id IN (SELECT id FROM orders WHERE merchant = ?)"
            parameters.append(.text(merchant))
        }
        guard let row = try connection.query(sql, parameters).first, let created = try row.integer("created_at"),
            let rowid = try row.integer("cursor_rowid")
        else {
            throw StoreError(
                .notFound,
                "starting_after: there is no \(Self.noun(table)) '\(id)' to continue after; pass the last id of the previous page")
        }
        (self.created, self.rowid) = (created, rowid)
    }

    private static func noun(_ table: String) -> String {
        switch table {
        case "outbox": "webhook"
        default: String(table.dropLast())
        }
    }
}

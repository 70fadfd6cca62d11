import Cashier
import Foundation

extension StoredOrder {
    /// The order in a row selected with ``OrderColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing, `NULL` where an order
    ///   must have a value, or holding what an order cannot (an unknown status or currency).
    init(row: SQLRow) throws { try self.init(row: row, prefix: "") }

    /// The order in a row that selected its columns with `prefix` before their names (the order
    /// joined to a payment: ``OrderColumn/selectList(from:prefix:)``).
    init(row: SQLRow, prefix: String) throws {
        let row = row.fields(OrderColumn.self, prefix: prefix)
        let currency = try row.required(.currency, \.text, as: { try? Currency(code: $0) })
        self.init(
            id: try row.required(.id, \.text), outTradeNo: try row.required(.outTradeNo, \.text),
            status: try row.required(.status, \.text, as: PaymentStatus.init(rawValue:)),
            total: Money(minorUnits: try row.required(.totalMinor, \.integer), currency: currency),
            refunded: Money(minorUnits: try row.required(.refundedMinor, \.integer), currency: currency),
            description: try row.text(.description) ?? "", metadataJSON: try row.text(.metadata) ?? "{}",
            itemsJSON: try row.text(.items) ?? "[]", clientSecret: try row.text(.clientSecret) ?? "",
            refundRequired: try row.integer(.refundRequired) == 1, version: try row.required(.version, \.integer),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            expiresAt: try row.integer(.expiresAt).map(SQLStatements.date), settledPaymentID: try row.text(.settledPaymentID),
            sheetJSON: try row.text(.sheet), returnURL: try row.text(.returnURL), merchant: try row.text(.merchant),
            profitSharing: try row.integer(.profitSharing) == 1)
    }
}

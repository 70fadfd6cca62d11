import Cashier
import Foundation

extension StoredInvoice {
    /// The invoice in a row selected with ``InvoiceColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing or holds what an invoice cannot.
    init(row: SQLRow) throws {
        let row = row.fields(InvoiceColumn.self)
        let currency = try SQLOrderStoreRecurring.currency(try row.required(.currency, \.text), table: "invoices")
        self.init(
            id: try row.required(.id, \.text), subscriptionID: try row.required(.subscriptionID, \.text),
            period: Int(try row.required(.period, \.integer)), orderID: try row.required(.orderID, \.text),
            amount: Money(minorUnits: try row.required(.amountMinor, \.integer), currency: currency),
            status: try SQLOrderStoreRecurring.decoded(try row.required(.status, \.text), "invoices.status"),
            attempts: Int(try row.required(.attempts, \.integer)), failures: Int(try row.required(.failures, \.integer)),
            nextAttemptAt: try row.integer(.nextAttemptAt).map(SQLStatements.date),
            lastError: try row.text(.lastError), periodStart: SQLStatements.date(try row.required(.periodStart, \.integer)),
            version: try row.required(.version, \.integer), createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            finishedAt: try row.integer(.finishedAt).map(SQLStatements.date))
    }
}

import Cashier
import Foundation

extension StoredSubscription {
    /// The subscription in a row selected with ``SubscriptionColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing or holds what a subscription cannot.
    init(row: SQLRow) throws {
        let row = row.fields(SubscriptionColumn.self)
        let currency = try SQLOrderStoreRecurring.currency(try row.required(.currency, \.text), table: "subscriptions")
        self.init(
            id: try row.required(.id, \.text), agreementID: try row.required(.agreementID, \.text), merchant: try row.text(.merchant),
            amount: Money(minorUnits: try row.required(.amountMinor, \.integer), currency: currency),
            description: try row.required(.description, \.text),
            intervalUnit: try SQLOrderStoreRecurring.decoded(try row.required(.intervalUnit, \.text), "subscriptions.interval_unit"),
            intervalCount: Int(try row.required(.intervalCount, \.integer)),
            anchor: SQLStatements.date(try row.required(.anchorAt, \.integer)), period: Int(try row.required(.period, \.integer)),
            nextChargeAt: try row.integer(.nextChargeAt).map(SQLStatements.date),
            maxAttempts: Int(try row.required(.maxAttempts, \.integer)),
            status: try SQLOrderStoreRecurring.decoded(try row.required(.status, \.text), "subscriptions.status"),
            cancelReason: try row.text(.cancelReason), version: try row.required(.version, \.integer),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            canceledAt: try row.integer(.canceledAt).map(SQLStatements.date))
    }
}

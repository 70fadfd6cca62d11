import Cashier
import Foundation

extension StoredSplit {
    /// The split in a row selected with ``SplitColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing or holds what a split cannot.
    init(row: SQLRow) throws {
        let row = row.fields(SplitColumn.self)
        let currency = try row.required(.currency, \.text, as: { try? Currency(code: $0) })
        let sharesText = try row.required(.shares, \.text)
        guard let shares = try? JSONDecoder().decode([Share].self, from: Data(sharesText.utf8)) else {
            throw StoreError(.failed, "splits.shares holds no list of shares")
        }
        self.init(
            id: try row.required(.id, \.text), orderID: try row.required(.orderID, \.text), paymentID: try row.required(.paymentID, \.text),
            merchant: try row.text(.merchant), provider: try row.required(.provider, \.text),
            outOrderNo: try row.required(.outOrderNo, \.text), transactionID: try row.required(.transactionID, \.text),
            providerOrderID: try row.text(.providerOrderID), shares: shares,
            amount: Money(minorUnits: try row.required(.amountMinor, \.integer), currency: currency),
            finish: try row.integer(.finish) == 1, description: try row.text(.description) ?? "",
            status: try row.required(.status, \.text, as: Status.init(rawValue:)), providerState: try row.text(.providerState),
            failureReason: try row.text(.failureReason), version: try row.required(.version, \.integer),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            finishedAt: try row.integer(.finishedAt).map(SQLStatements.date))
    }
}

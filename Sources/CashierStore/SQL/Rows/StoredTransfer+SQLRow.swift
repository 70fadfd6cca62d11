import Cashier
import Foundation

extension StoredTransfer {
    /// The transfer in a row selected with ``TransferColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing or holds what a transfer cannot.
    init(row: SQLRow) throws {
        let row = row.fields(TransferColumn.self)
        let code = try row.required(.currency, \.text)
        guard let currency = try? Currency(code: code) else { throw StoreError(.failed, "transfers.currency holds \(code.prefix(8))") }
        let statusText = try row.required(.status, \.text)
        guard let status = Status(rawValue: statusText) else {
            throw StoreError(.failed, "transfers.status holds \(statusText.prefix(20))")
        }
        self.init(
            id: try row.required(.id, \.text), merchant: try row.text(.merchant), provider: try row.required(.provider, \.text),
            outBillNo: try row.required(.outBillNo, \.text), providerBillNo: try row.text(.providerBillNo),
            appID: try row.required(.appID, \.text), openID: try row.required(.openID, \.text),
            amount: Money(minorUnits: try row.required(.amountMinor, \.integer), currency: currency),
            remark: try row.required(.remark, \.text),
            scene: try row.required(.scene, \.text), userName: try row.text(.userName), status: status,
            providerState: try row.text(.providerState), packageInfo: try row.text(.packageInfo),
            failureReason: try row.text(.failureReason),
            version: try row.required(.version, \.integer), createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            finishedAt: try row.integer(.finishedAt).map(SQLStatements.date))
    }
}

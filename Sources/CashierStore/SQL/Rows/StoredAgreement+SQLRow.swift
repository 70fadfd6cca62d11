import Cashier
import Foundation

extension StoredAgreement {
    /// The agreement in a row selected with ``AgreementColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing or holds what an agreement cannot.
    init(row: SQLRow) throws {
        let row = row.fields(AgreementColumn.self)
        let currency = try SQLOrderStoreRecurring.currency(try row.required(.currency, \.text), table: "agreements")
        self.init(
            id: try row.required(.id, \.text), merchant: try row.text(.merchant), provider: try row.required(.provider, \.text),
            method: try row.required(.method, \.text), externalNo: try row.required(.externalNo, \.text),
            providerAgreementID: try row.text(.providerAgreementID), payer: try row.text(.payer), planID: try row.text(.planID),
            description: try row.required(.description, \.text),
            periodUnit: try SQLOrderStoreRecurring.decoded(try row.required(.periodUnit, \.text), "agreements.period_unit"),
            periodCount: Int(try row.required(.periodCount, \.integer)),
            singleLimit: Money(minorUnits: try row.required(.singleLimitMinor, \.integer), currency: currency),
            firstChargeAt: try row.integer(.firstChargeAt).map(SQLStatements.date),
            status: try SQLOrderStoreRecurring.decoded(try row.required(.status, \.text), "agreements.status"),
            providerState: try row.text(.providerState), endReason: try row.text(.endReason),
            version: try row.required(.version, \.integer),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            activatedAt: try row.integer(.activatedAt).map(SQLStatements.date), endedAt: try row.integer(.endedAt).map(SQLStatements.date))
    }
}

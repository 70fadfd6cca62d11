import Cashier
import Foundation

extension StoredPayment {
    /// The payment attempt in a row selected with ``PaymentColumn/list`` (or read from `p.` in a join).
    /// - Throws: `StoreError.failed` naming the column that is missing, `NULL` where an attempt
    ///   must have a value, or holding what an attempt cannot (an unknown method or status).
    init(row: SQLRow) throws {
        let row = row.fields(PaymentColumn.self)
        let currency = try row.required(.currency, \.text, as: { try? Currency(code: $0) })
        let amount = try row.required(.amountMinor, \.integer)
        let refunded = try row.required(.refundedMinor, \.integer)
        self.init(
            id: try row.required(.id, \.text), orderID: try row.required(.orderID, \.text),
            method: try row.required(.method, \.text, as: PaymentMethod.init(rawValue:)),
            provider: try row.required(.provider, \.text, as: PaymentProvider.init(rawValue:)),
            outTradeNo: try row.required(.outTradeNo, \.text), appID: try row.text(.appID), merchantID: try row.text(.merchantID),
            payer: try row.text(.payer), transactionID: try row.text(.transactionID), walletToken: try row.text(.walletToken),
            amount: Money(minorUnits: amount, currency: currency), refunded: Money(minorUnits: refunded, currency: currency),
            reserved: Money(minorUnits: try row.required(.reservedMinor, \.integer), currency: currency),
            status: try row.required(.status, \.text, as: PaymentAttemptStatus.init(rawValue:)),
            refundRequired: try row.integer(.refundRequired) == 1 && refunded < amount, failureReason: try row.text(.failureReason),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            succeededAt: try row.integer(.succeededAt).map(SQLStatements.date))
        capture = try row.text(.capture).flatMap(CaptureState.init(rawValue:))
        contacts = try row.text(.contacts).flatMap { try? JSONDecoder().decode(PaymentContacts.self, from: Data($0.utf8)) }
        sharedMinor = try row.integer(.sharedMinor) ?? 0
    }
}

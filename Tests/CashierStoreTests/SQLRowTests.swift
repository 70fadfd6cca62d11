import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// Rows are read by column name, on SQLite and PostgreSQL: a record reads the same whatever order
/// its columns come in, and a column missing, renamed, `NULL` where it may not be, or holding
/// another kind of value is an error that names it — never a wrong value or a silent `nil`.
@Suite struct SQLRowTests {
    typealias Backend = OrderStoreTests.Backend

    /// A store with one order paid by one payment, and both as the store reads them.
    static func paid(_ backend: Backend) async throws -> (store: any SQLOrderStore, order: StoredOrder, payment: StoredPayment) {
        let store = try #require(try await backend.store() as? any SQLOrderStore)
        let (order, payment) = try await DashboardStoreTests.paid(store, 5100, .wechatNative, .wechatV2, at: 0)
        return (store, order, payment)
    }

    /// `PaymentColumn`'s select list with `column`'s entry replaced by `replacement` (dropped when `nil`).
    static func payments(replacing column: PaymentColumn, with replacement: String?) -> String {
        PaymentColumn.allCases.compactMap { $0 == column ? replacement : $0.name }.joined(separator: ", ")
    }

    /// The payment read from `SELECT \(columns) FROM payments`: what it decodes to, or the error.
    static func payment(_ store: any SQLOrderStore, _ columns: String) async throws -> StoredPayment {
        try await store.withReading { session in
            let rows = try session.connection.query("SELECT \(columns) FROM payments", [])
            return try StoredPayment(row: try #require(rows.first))
        }
    }

    @Test(arguments: Backend.available)
    func aRecordReadsTheSameWhateverOrderItsColumnsComeIn(backend: Backend) async throws {
        let (store, _, payment) = try await Self.paid(backend)
        let reversed = PaymentColumn.allCases.reversed().map(\.name).joined(separator: ", ")
        #expect(try await Self.payment(store, reversed) == payment)
        // And with a column of another table in front that no payment has.
        #expect(try await Self.payment(store, "'x' AS unrelated, " + PaymentColumn.list) == payment)
    }

    @Test(arguments: Backend.available)
    func aMissingOrRenamedColumnIsAnErrorThatNamesIt(backend: Backend) async throws {
        let (store, _, _) = try await Self.paid(backend)
        let missing = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .amountMinor, with: nil))
        }
        #expect(missing?.code == .failed)
        #expect(missing?.message.contains("a payments row has no column amount_minor") == true, "\(missing?.message ?? "")")
        let renamed = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .amountMinor, with: "amount_minor AS amount"))
        }
        #expect(renamed?.message.contains("no column amount_minor") == true, "\(renamed?.message ?? "")")
        // A column a payment may leave NULL is no exception: its absence is not read as "none".
        let optional = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .capture, with: nil))
        }
        #expect(optional?.message.contains("no column capture") == true, "\(optional?.message ?? "")")
    }

    @Test(arguments: Backend.available)
    func aValueOfAnotherKindOrNullOrUnknownIsAnErrorThatNamesItsColumn(backend: Backend) async throws {
        let (store, _, _) = try await Self.paid(backend)
        let text = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .amountMinor, with: "'5100' AS amount_minor"))
        }
        #expect(text?.message.contains("payments.amount_minor holds text") == true, "\(text?.message ?? "")")
        let null = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .status, with: "NULL AS status"))
        }
        #expect(null?.message.contains("payments.status is NULL") == true, "\(null?.message ?? "")")
        let unknown = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .status, with: "'teleported' AS status"))
        }
        #expect(unknown?.message.contains("payments.status holds 'teleported'") == true, "\(unknown?.message ?? "")")
        let optional = await #expect(throws: StoreError.self) {
            try await Self.payment(store, Self.payments(replacing: .failureReason, with: "7 AS failure_reason"))
        }
        #expect(optional?.message.contains("payments.failure_reason holds an integer") == true, "\(optional?.message ?? "")")
    }

    /// A payment and its order in one row, whose tables share names (`id`, `status`, `currency`,
    /// `created_at`): each record reads its own.
    @Test(arguments: Backend.available)
    func aJoinReadsEachTablesColumnsApart(backend: Backend) async throws {
        let (store, order, payment) = try await Self.paid(backend)
        let found = try await store.withReading { session in
            try SQLLedger.paymentAndOrder(session.connection, where: "p.id = ?", [.text(payment.id)])
        }
        #expect(found?.payment == payment)
        #expect(found?.order == (try await store.order(id: order.id)))
        #expect(SQLLedger.joinedColumns.contains(#"o.status AS "order.status""#))
    }

    /// Ad-hoc rows by name: an absent column is an error, not `nil`.
    @Test(arguments: Backend.available)
    func anAdHocRowIsReadByName(backend: Backend) async throws {
        let (store, _, _) = try await Self.paid(backend)
        let row = try await store.withReading { session in
            try #require(try session.connection.query("SELECT count(*) AS orders, NULL AS no_value FROM orders", []).first)
        }
        #expect(try row.required("orders", \.integer) == 1)
        #expect(try row.text("no_value") == nil)
        let absent = #expect(throws: StoreError.self) { try row.integer("payments") }
        #expect(absent?.message.contains("the row has no column payments: the statement returned orders, no_value") == true)
        #expect(throws: StoreError.self) { try row.required("no_value", \.text) }
    }

    /// The names are read once for each prepared statement, and every row of it, in every
    /// call, shares them; a record's columns are looked up in them once.
    @Test(arguments: Backend.available)
    func everyRowOfAStatementSharesOneColumnIndex(backend: Backend) async throws {
        let (store, _, _) = try await Self.paid(backend)
        _ = try await DashboardStoreTests.paid(store, 700, .alipayApp, .alipay, at: 60)
        let sql = "SELECT \(PaymentColumn.list) FROM payments ORDER BY created_at"
        let (first, second) = try await store.withReading { session in
            (try session.connection.query(sql, []), try session.connection.query(sql, []))
        }
        try #require(first.count == 2 && second.count == 2)
        #expect(first[0].index === first[1].index && first[0].index === second[0].index)
        let positions = first[0].index.positions(of: PaymentColumn.self, prefix: "")
        #expect(positions == Array(PaymentColumn.allCases.indices))
        #expect(second[1].index.positions(of: PaymentColumn.self, prefix: "") == positions)
        #expect(try first.map(StoredPayment.init(row:)).map(\.amount.minorUnits) == [5100, 700])
    }

    /// Each column enum: raw values are places (0, 1, 2, …), names are unique, and its select
    /// list is its names in order.
    @Test func columnEnumsAreNumberedInOrderAndNamedOnce() {
        func check<Column: SQLColumn>(_ column: Column.Type, _ list: String) {
            #expect(Column.allCases.map(\.rawValue) == Array(0..<Column.allCases.count), "\(Column.table)")
            #expect(Set(Column.allCases.map(\.name)).count == Column.allCases.count, "\(Column.table)")
            #expect(list == Column.allCases.map(\.name).joined(separator: ", "), "\(Column.table)")
        }
        check(OrderColumn.self, OrderColumn.list)
        check(PaymentColumn.self, PaymentColumn.list)
        check(RefundColumn.self, RefundColumn.list)
        check(EventColumn.self, EventColumn.list)
        check(OutboxColumn.self, OutboxColumn.list)
        check(APIKeyColumn.self, APIKeyColumn.list)
        check(DashboardSessionColumn.self, DashboardSessionColumn.list)
        check(IdempotencyKeyColumn.self, IdempotencyKeyColumn.list)
        #expect(
            OrderColumn.selectList(from: "o", prefix: "order.").hasPrefix(#"o.id AS "order.id", o.out_trade_no AS "order.out_trade_no""#))
    }

    @Test(arguments: Backend.available)
    func aStreamedRowIsTheDatabasesOwnBytesAndIntegers(backend: Backend) async throws {
        let (store, _, payment) = try await Self.paid(backend)
        let second = try await DashboardStoreTests.paid(store, 700, .alipayApp, .alipay, at: 60).payment
        let rows = try await store.withReading { session in
            var rows: [[String?]] = []
            let columns = PaymentExportColumn.allCases.map(\.name).joined(separator: ", ")
            try session.connection.stream("SELECT \(columns) FROM payments ORDER BY created_at, rowid", []) { row in
                rows.append(
                    PaymentExportColumn.allCases.map { column in
                        switch column {
                        case .createdAt, .succeededAt, .amountMinor, .refundedMinor, .refundRequired:
                            row.integer(column.rawValue).map(String.init)
                        default: row.bytes(column.rawValue).map { String(decoding: $0, as: UTF8.self) }
                        }
                    })
            }
            return rows
        }
        func expected(_ payment: StoredPayment) -> [String?] {
            func ms(_ date: Date?) -> String? { date.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } }
            return [
                payment.id, payment.orderID, ms(payment.createdAt), ms(payment.succeededAt), payment.method.rawValue,
                payment.provider.rawValue, payment.outTradeNo, payment.transactionID, payment.status.rawValue,
                payment.amount.currency.code, String(payment.amount.minorUnits), String(payment.refunded.minorUnits),
                payment.refundRequired ? "1" : "0",
            ]
        }
        #expect(rows == [expected(payment), expected(second)])

        // What the closure throws ends the read; the connection reads on.
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await store.withReading { try $0.connection.stream("SELECT id FROM payments", []) { _ in throw Stop() } }
        }
        #expect(try await store.payment(id: payment.id)?.id == payment.id)
    }
}

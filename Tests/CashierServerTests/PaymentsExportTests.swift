import Cashier
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// The payments export, streamed from the store (one statement; a PostgreSQL cursor fetched in
/// batches) and written from the database's bytes, against the file the records' own fields
/// make (their fields as strings, times by `Date.ISO8601FormatStyle`, amounts by
/// `Money.decimalString`, paged by the API's cursor): byte for byte, on SQLite and on PostgreSQL
/// over more than one of the cursor's batches, and one merchant's alone.
struct PaymentsExportTests {
    @Test func theStreamedFileIsWhatTheRecordsWriteAsStringsOnSQLite() async throws {
        let store = try SQLiteOrderStore(path: ":memory:")
        try await store.migrate()
        try await exportMatchesTheRecords(store, count: 1_007)
    }

    @Test(.enabled(if: TestPostgres.url != nil, "\(TestPostgres.skipReason)"))
    func theStreamedFileIsWhatTheRecordsWriteAsStringsOnPostgreSQL() async throws {
        let store = try await PostgresOrderStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        try await store.migrate()
        try await exportMatchesTheRecords(store, count: 5_007)  // more than one of the cursor's batches of 5,000
        await store.close()
    }

    func exportMatchesTheRecords(_ store: any SQLOrderStore, count: Int) async throws {
        let timeZone = try #require(TimeZone(identifier: "Asia/Shanghai"))
        let start = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01 08:00 in Shanghai
        let methods: [(PaymentMethod, PaymentProvider)] = [(.wechatNative, .wechatV2), (.alipayQR, .alipay), (.wechatApp, .wechatV3)]
        let orders = (0..<count).map { index in
            let (method, provider) = methods[index % methods.count]
            let created = start.addingTimeInterval(Double(index) * 27.125)
            return HistoricalOrder(
                id: "ord_export\(index)", outTradeNo: index % 11 == 0 ? "-C\(index)" : "C\(index)",
                merchant: index % 4 == 0 ? "shop_a" : nil, createdAt: created,
                total: Money(minorUnits: Int64(index * 7 + 1), currency: .cny), method: method, provider: provider,
                transactionID: index % 5 == 0 ? nil : "42\(index)", paidAt: index % 5 == 0 ? nil : created.addingTimeInterval(2.5),
                refunds: index % 9 == 0 && index % 5 != 0 ? [.init(amount: 1, at: created.addingTimeInterval(60))] : [])
        }
        try await store.insertHistory(orders)
        let range = try ReportRange(from: "2025-12-01", to: "2025-12-02", timeZone: timeZone)

        for merchant in [nil, "shop_a"] {
            let file = try await LedgerExport.payments.export(range, merchant: merchant, store: store, timeZone: timeZone)
            defer { try? FileManager.default.removeItem(atPath: file.path) }
            let written = try Data(contentsOf: URL(fileURLWithPath: file.path))

            var expected: [UInt8] = [0xEF, 0xBB, 0xBF]
            func row(_ fields: [String]) {
                expected += Array(fields.map(CSVFile.field).joined(separator: ",").utf8) + [0x0D, 0x0A]
            }
            row(LedgerExport.payments.header)
            let style = Date.ISO8601FormatStyle(timeZone: timeZone)
            func stamp(_ date: Date?) -> String { date.map { $0.formatted(style) } ?? "" }
            var query = RecordQuery(from: range.start, until: range.end, oldestFirst: true, limit: 1_000)
            query.merchant = merchant
            var listed = 0
            while true {
                let page = try await store.payments(matching: query)
                for payment in page {
                    row([
                        payment.id, payment.orderID, stamp(payment.createdAt), stamp(payment.succeededAt), payment.method.rawValue,
                        payment.provider.rawValue, payment.outTradeNo, payment.transactionID ?? "", payment.status.rawValue,
                        payment.amount.currency.code, payment.amount.decimalString, payment.refunded.decimalString,
                        payment.refundRequired ? "true" : "false",
                    ])
                }
                listed += page.count
                guard page.count == query.limit else { break }
                query.after = page.last?.id
            }
            #expect(listed == (merchant == nil ? count : (count + 3) / 4))
            #expect(Array(written) == expected)
        }
    }
}

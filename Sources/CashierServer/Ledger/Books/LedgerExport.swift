import Cashier
import CashierStore
import CashierWire
import Foundation

/// CSV exports of orders, payments, refunds, splits (a row per share) and transfers created in a range of days: read from the store
/// a page at a time and written to a file the server sends from disk, so a year of orders never
/// sits in memory. The API (`GET /v1/exports/{kind}.csv`) and the dashboard serve the same files.
enum LedgerExport: String, CaseIterable, Sendable {
    case orders, payments, refunds, splits, transfers

    /// The file names, for messages: `orders.csv, payments.csv, …`.
    static var fileNames: String { allCases.map { $0.rawValue + ".csv" }.joined(separator: ", ") }

    static let pageSize = 500

    /// `orders.csv` → `.orders`.
    init?(fileName: String) {
        guard fileName.hasSuffix(".csv") else { return nil }
        self.init(rawValue: String(fileName.dropLast(4)))
    }

    var header: [String] {
        switch self {
        case .orders:
            [
                "id", "out_trade_no", "created", "status", "currency", "amount", "amount_refunded", "description", "refund_required",
                "payment_id",
            ]
        case .payments:
            [
                "id", "order_id", "created", "succeeded", "method", "provider", "out_trade_no", "transaction_id", "status", "currency",
                "amount", "amount_refunded", "refund_required",
            ]
        case .refunds:
            [
                "id", "order_id", "payment_id", "created", "finished", "out_refund_no", "provider_refund_id", "status", "currency",
                "amount",
                "reason", "failure_reason", "requested_by",
            ]
        case .splits:
            [
                "split_id", "order_id", "payment_id", "created", "finished", "provider", "out_order_no", "provider_order_id", "status",
                "receiver_type", "receiver_account", "currency", "amount", "result", "returned", "failure_reason", "finishes_sharing",
            ]
        case .transfers:
            [
                "id", "created", "finished", "provider", "out_bill_no", "provider_bill_no", "payee", "status", "currency", "amount",
                "remark", "failure_reason",
            ]
        }
    }

    /// Writes the export (of one sub-merchant's orders when `merchant` is set) to a file, for a download.
    func export(_ range: ReportRange, merchant: String? = nil, store: any OrderStore, timeZone: TimeZone) async throws -> ExportFile {
        var file = try CSVFile(header: header)
        var time = ExportTimestamp(timeZone: timeZone)
        var query = RecordQuery(from: range.start, until: range.end, oldestFirst: true, limit: Self.pageSize)
        query.merchant = merchant
        do {
            try await write(to: &file, query: &query, store: store, time: &time)
        } catch {
            file.discard()
            throw error
        }
        return ExportFile(path: try file.finish(), name: "\(rawValue)-\(range.from)-to-\(range.to).csv")
    }

    /// Every record the query finds, a page at a time, oldest first.
    private func write(to file: inout CSVFile, query: inout RecordQuery, store: any OrderStore, time: inout ExportTimestamp) async throws {
        func stamp(_ date: Date?) -> String { time.string(date) }
        var offset = 0
        while true {
            let count: Int
            switch self {
            case .orders:
                let page = try await store.orders(matching: query)
                for order in page {
                    try file.write([
                        order.id, order.outTradeNo, stamp(order.createdAt), order.status.rawValue, order.total.currency.code,
                        order.total.decimalString, order.refunded.decimalString, order.description, order.refundRequired ? "true" : "false",
                        order.settledPaymentID ?? "",
                    ])
                }
                (count, query.after) = (page.count, page.last?.id)
            case .payments:
                try await writePayments(to: &file, query: query, store: store, time: &time)
                return
            case .refunds:
                let page = try await store.refunds(matching: query)
                for refund in page {
                    try file.write([
                        refund.id, refund.orderID, refund.paymentID, stamp(refund.createdAt), stamp(refund.finishedAt), refund.outRefundNo,
                        refund.providerRefundID ?? "", refund.status.rawValue, refund.amount.currency.code, refund.amount.decimalString,
                        refund.reason ?? "", refund.failureReason ?? "", refund.requestedBy ?? "",
                    ])
                }
                (count, query.after) = (page.count, page.last?.id)
            case .splits:
                let page = try await store.splits(
                    createdFrom: query.from ?? .distantPast, until: query.until ?? .distantFuture, merchant: query.merchant,
                    limit: Self.pageSize, offset: offset)
                for split in page {
                    let currency = split.amount.currency
                    let base = [
                        split.id, split.orderID, split.paymentID, stamp(split.createdAt), stamp(split.finishedAt),
                        ReceiverJSON.apiProvider(split.provider), split.outOrderNo, split.providerOrderID ?? "", split.status.rawValue,
                    ]
                    for share in split.shares {
                        try file.write(
                            base + [
                                share.type, share.account, currency.code,
                                Money(minorUnits: share.amountMinor, currency: currency).decimalString,
                                share.result.rawValue, Money(minorUnits: share.returnedMinor, currency: currency).decimalString,
                                share.failReason ?? split.failureReason ?? "", split.finish ? "true" : "false",
                            ])
                    }
                    if split.shares.isEmpty {
                        try file.write(base + ["", "", currency.code, "0.00", "", "0.00", split.failureReason ?? "", "true"])
                    }
                }
                (count, offset) = (page.count, offset + page.count)
            case .transfers:
                let page = try await store.transfers(
                    createdFrom: query.from ?? .distantPast, until: query.until ?? .distantFuture, merchant: query.merchant,
                    limit: Self.pageSize, offset: offset)
                for transfer in page {
                    try file.write([
                        transfer.id, stamp(transfer.createdAt), stamp(transfer.finishedAt), ReceiverJSON.apiProvider(transfer.provider),
                        transfer.outBillNo, transfer.providerBillNo ?? "", transfer.openID, transfer.status.rawValue,
                        transfer.amount.currency.code, transfer.amount.decimalString, transfer.remark, transfer.failureReason ?? "",
                    ])
                }
                (count, offset) = (page.count, offset + page.count)
            }
            if count < Self.pageSize { break }
        }
    }
}

extension LedgerExport {
    /// The payments, streamed from the store (``Reports/exportPayments(matching:_:)``: one
    /// statement, no page and no record a row) and written a field at a time from the database's
    /// own bytes, on the store's thread (`cashier-bench scale`, `scale-export-vs-sqlite3`).
    fileprivate func writePayments(to file: inout CSVFile, query: RecordQuery, store: any OrderStore, time: inout ExportTimestamp)
        async throws
    {
        let writer = PaymentRows(file: file, time: time)
        try await store.exportPayments(matching: query) { try writer.write($0) }
        (file, time) = (writer.file, writer.time)
    }
}

/// Writes streamed payment rows (``PaymentExportColumn``) to the export's file. Used by one
/// thread at a time: the store's, for the read, then the caller's once the read has returned.
private final class PaymentRows: @unchecked Sendable {
    var file: CSVFile
    var time: ExportTimestamp
    /// The last currency met, by its code's bytes: rows of one currency look it up once.
    private var currency: (code: [UInt8], value: Currency)?

    init(file: CSVFile, time: ExportTimestamp) {
        self.file = file
        self.time = time
    }

    func write(_ row: any StreamedRow) throws {
        typealias Column = PaymentExportColumn
        func text(_ column: Column) { file.field(bytes: row.bytes(column.rawValue)) }
        func stamp(_ column: Column) {
            file.field(row.integer(column.rawValue).map { Date(timeIntervalSince1970: Double($0) / 1000) }, &time)
        }
        let currency = try currency(of: row)
        text(.id)
        text(.orderID)
        stamp(.createdAt)
        stamp(.succeededAt)
        text(.method)
        text(.provider)
        text(.outTradeNo)
        text(.transactionID)
        text(.status)
        file.field(currency.code)
        file.field(minorUnits: row.integer(Column.amountMinor.rawValue) ?? 0, currency)
        file.field(minorUnits: row.integer(Column.refundedMinor.rawValue) ?? 0, currency)
        file.field((row.integer(Column.refundRequired.rawValue) ?? 0) != 0 ? "true" : "false")
        try file.endRow()
    }

    private func currency(of row: any StreamedRow) throws -> Currency {
        let code = row.bytes(PaymentExportColumn.currency.rawValue) ?? UnsafeBufferPointer(start: nil, count: 0)
        if let known = currency, known.code.elementsEqual(code) { return known.value }
        let text = String(decoding: code, as: UTF8.self)
        guard let value = try? Currency(code: text) else {
            let id = String(
                decoding: row.bytes(PaymentExportColumn.id.rawValue) ?? UnsafeBufferPointer(start: nil, count: 0), as: UTF8.self)
            throw StoreError(.failed, "payment \(id) is in a currency this version does not know ('\(text)')")
        }
        currency = (Array(code), value)
        return value
    }
}

/// A finished export: the file, and the name a download gives it.
struct ExportFile: Sendable {
    let path: String
    let name: String
}

import Cashier
import CashierStore
import Foundation

/// CSV exports of orders, payments and refunds created in a range of days: read from the store
/// a page at a time and written to a file the server sends from disk, so a year of orders never
/// sits in memory. The API (`GET /v1/exports/{kind}.csv`) and the dashboard serve the same files.
enum LedgerExport: String, CaseIterable, Sendable {
    case orders, payments, refunds

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
        }
    }

    /// Writes the export (of one sub-merchant's orders when `merchant` is set) to a file, for a download.
    func export(_ range: ReportRange, merchant: String? = nil, store: any Reports, timeZone: TimeZone) async throws -> ExportFile {
        var file = try CSVFile(header: header)
        let time = Date.ISO8601FormatStyle(timeZone: timeZone)
        func stamp(_ date: Date?) -> String { date.map { $0.formatted(time) } ?? "" }
        var query = RecordQuery(from: range.start, until: range.end, oldestFirst: true, limit: Self.pageSize)
        query.merchant = merchant
        do {
            try await write(to: &file, query: &query, store: store, stamp: stamp)
        } catch {
            file.discard()
            throw error
        }
        return ExportFile(path: try file.finish(), name: "\(rawValue)-\(range.from)-to-\(range.to).csv")
    }

    /// Every record the query finds, a page at a time, oldest first.
    private func write(to file: inout CSVFile, query: inout RecordQuery, store: any Reports, stamp: (Date?) -> String) async throws {
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
                let page = try await store.payments(matching: query)
                for payment in page {
                    try file.write([
                        payment.id, payment.orderID, stamp(payment.createdAt), stamp(payment.succeededAt), payment.method.rawValue,
                        payment.provider.rawValue, payment.outTradeNo, payment.transactionID ?? "", payment.status.rawValue,
                        payment.amount.currency.code, payment.amount.decimalString, payment.refunded.decimalString,
                        payment.refundRequired ? "true" : "false",
                    ])
                }
                (count, query.after) = (page.count, page.last?.id)
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
            }
            if count < Self.pageSize { break }
        }
    }
}

/// A finished export: the file, and the name a download gives it.
struct ExportFile: Sendable {
    let path: String
    let name: String
}

import Cashier
import CashierStore
import Foundation

/// `scale-dashboard-p99`: the reads behind the dashboard's orders, payments and refunds pages
/// (and the API's lists), each run `samples` times on the full store: the first page, a page deep
/// in the history by its cursor, by status, by a week's dates, by merchant, and searches by
/// `out_trade_no` and by transaction id. Reported: the worst page's p99, and each page's.
struct ScaleDashboard {
    let store: any OrderStore
    let history: ScaleHistory
    let samples: Int

    /// One page: its name and the read it makes (returning how many records it found).
    struct Page {
        let name: String
        let read: @Sendable () async throws -> Int
    }

    /// The pages, with their parameters taken from the history.
    func pages() -> [Page] {
        let store = store
        let history = history
        // Deep: a tenth of the way from the oldest — nine tenths of the history lie before it, newest first.
        let deep = history.count / 10
        let searched = history.count / 3
        // A refunded order deep in the history, for the refunds' cursor.
        let refunded = (deep..<history.count).first { !history.order($0).refunds.isEmpty } ?? deep
        let week = history.createdAt(history.count / 2)
        let weekEnd = week.addingTimeInterval(7 * 86_400)
        let smallest = ScaleHistory.merchants[4]
        let number = ScaleHistory.outTradeNo(searched)
        let transaction = history.order(searched).transactionID ?? ""
        func records(_ name: String, _ query: RecordQuery, _ read: @escaping @Sendable (RecordQuery) async throws -> Int) -> Page {
            Page(name: name) { try await read(query) }
        }
        func query(_ change: (inout RecordQuery) -> Void) -> RecordQuery {
            var query = RecordQuery(limit: 51)
            change(&query)
            return query
        }
        let orders: @Sendable (RecordQuery) async throws -> Int = { try await store.orders(matching: $0).count }
        let payments: @Sendable (RecordQuery) async throws -> Int = { try await store.payments(matching: $0).count }
        let refunds: @Sendable (RecordQuery) async throws -> Int = { try await store.refunds(matching: $0).count }
        return [
            // The dashboard's orders page (newest first, 25 a page, by status).
            Page(name: "orders-first") { try await store.orders(status: nil, merchant: nil, before: nil, limit: 26).count },
            Page(name: "orders-deep") {
                try await store.orders(status: nil, merchant: nil, before: ScaleHistory.orderID(deep), limit: 26).count
            },
            Page(name: "orders-paid") { try await store.orders(status: .paid, merchant: nil, before: nil, limit: 26).count },
            Page(name: "orders-refunded") { try await store.orders(status: .refunded, merchant: nil, before: nil, limit: 26).count },
            Page(name: "orders-merchant") { try await store.orders(status: nil, merchant: smallest, before: nil, limit: 26).count },
            records(
                "orders-week",
                query {
                    $0.from = week
                    $0.until = weekEnd
                }, orders),
            records(
                "orders-merchant-week",
                query {
                    $0.from = week
                    $0.until = weekEnd
                    $0.merchant = smallest
                }, orders),
            records("orders-search-out-trade-no", query { $0.search = number }, orders),
            // Payments and refunds: the records pages (50 a page).
            records("payments-first", query { _ in }, payments),
            records("payments-deep", query { $0.after = "pay_scale_\(deep)" }, payments),
            records("payments-pending", query { $0.status = "pending" }, payments),
            records(
                "payments-week",
                query {
                    $0.from = week
                    $0.until = weekEnd
                }, payments),
            records("payments-merchant", query { $0.merchant = smallest }, payments),
            records("payments-provider-unionpay", query { $0.provider = .unionpay }, payments),
            records("payments-search-out-trade-no", query { $0.search = number }, payments),
            records("payments-search-transaction-id", query { $0.search = transaction }, payments),
            records("refunds-first", query { _ in }, refunds),
            records("refunds-deep", query { $0.after = "re_0_" + ScaleHistory.orderID(refunded) }, refunds),
            records("refunds-succeeded", query { $0.status = "succeeded" }, refunds),
            records(
                "refunds-week",
                query {
                    $0.from = week
                    $0.until = weekEnd
                }, refunds),
            records("refunds-merchant", query { $0.merchant = smallest }, refunds),
            records("refunds-search-out-trade-no", query { $0.search = ScaleHistory.outTradeNo(refunded) }, refunds),
        ]
    }

    /// Each page's p50 and p99 in milliseconds (after one unmeasured read), and how many records it found.
    func measure() async throws -> [(name: String, p50: Double, p99: Double, found: Int)] {
        let clock = ContinuousClock()
        var results: [(name: String, p50: Double, p99: Double, found: Int)] = []
        for page in pages() {
            let found = try await page.read()
            var times: [Double] = []
            for _ in 0..<samples {
                let started = clock.now
                _ = try await page.read()
                times.append((clock.now - started) / .milliseconds(1))
            }
            times.sort()
            func percentile(_ p: Double) -> Double { times[min(times.count - 1, Int((Double(times.count) * p).rounded(.up)) - 1)] }
            results.append((page.name, percentile(0.5), percentile(0.99), found))
        }
        return results
    }
}

import Cashier
import CashierHTTP
import CashierStore
import CashierWire
import Foundation

/// Profit sharing on the dashboard: every split, newest first, and each order's splits and
/// returns on its page. Read only: splits are made through the API (``SplitService``).
extension Dashboard {
    func splits(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let offset = min(max(Int(request.queryValue("offset") ?? "") ?? 0, 0), 100_000)
        let found = try await store.splits(merchant: nil, limit: 101, offset: offset)
        let rows = found.prefix(100).map { split in
            """
            <tr class="split" data-id="\(HTMLText.escape(split.id))"><td>\(when(split.createdAt))</td>\
            <td><a href="/dashboard/orders/\(HTMLText.escape(split.orderID))"><code>\(HTMLText.escape(split.orderID))</code></a></td>\
            <td><code>\(HTMLText.escape(split.outOrderNo))</code></td><td>\(HTMLText.escape(ReceiverJSON.apiProvider(split.provider)))</td>\
            <td class="amount">\(Self.format(split.amount))</td><td>\(split.shares.count)\(split.finish ? " · finishes" : "")</td>\
            <td>\(Self.splitStatus(split))</td></tr>
            """
        }.joined()
        let more = found.count > 100 ? "<p><a href=\"/dashboard/splits?offset=\(offset + 100)\">Older</a></p>" : ""
        return page(
            "Splits", session,
            """
            <h1 id="splits">Splits</h1>\
            <p class="muted">Orders shared with receivers (分账). A split is reserved against its order's payment before the \
            provider is asked, so shares and refunds together never exceed what was paid.</p>\
            \(Self.table("split-list", ["Created", "Order", "out_order_no", "Provider", "Amount", "Shares", "Status"], rows))\(more)
            """)
    }

    /// The order page's profit-sharing section: what is shared and left, each split's shares and the returns.
    func splitSection(_ order: StoredOrder, payments: [StoredPayment]) async throws -> String {
        let splits = try await store.splits(orderID: order.id)
        guard order.profitSharing || !splits.isEmpty else { return "" }
        let returns = try await store.splitReturns(orderID: order.id)
        let payment = payments.first { $0.id == order.settledPaymentID }
        let currency = order.total.currency
        let shared = Money(minorUnits: payment?.sharedMinor ?? 0, currency: currency)
        let finished = splits.contains { $0.finish && $0.status != .failed }
        let left = finished ? Money(minorUnits: 0, currency: currency) : payment?.status == .succeeded ? payment?.refundable : nil
        let rows = splits.flatMap { split in
            split.shares.map { share in
                """
                <tr class="share"><td>\(time(split.createdAt))</td><td><code>\(HTMLText.escape(split.outOrderNo))</code></td>\
                <td>\(HTMLText.escape(share.type)) <code>\(HTMLText.escape(share.account))</code></td>\
                <td class="amount">\(Self.format(Money(minorUnits: share.amountMinor, currency: currency)))</td>\
                <td>\(HTMLText.escape(share.result.rawValue))\(share.failReason.map { " — " + HTMLText.escape($0) } ?? "")</td>\
                <td class="amount">\(Self.format(Money(minorUnits: share.returnedMinor, currency: currency)))</td>\
                <td>\(Self.splitStatus(split))</td></tr>
                """
            }
                + (split.shares.isEmpty
                    ? [
                        """
                        <tr class="share"><td>\(time(split.createdAt))</td><td><code>\(HTMLText.escape(split.outOrderNo))</code></td>\
                        <td colspan="4">finish: the rest unfreezes to the merchant</td><td>\(Self.splitStatus(split))</td></tr>
                        """
                    ] : [])
        }.joined()
        let returnRows = returns.map { splitReturn in
            """
            <tr class="split-return"><td>\(time(splitReturn.createdAt))</td><td><code>\(HTMLText.escape(splitReturn.outReturnNo))</code></td>\
            <td><code>\(HTMLText.escape(splitReturn.account))</code></td><td class="amount">\(Self.format(splitReturn.amount))</td>\
            <td>\(HTMLText.escape(splitReturn.status.rawValue))\(splitReturn.failureReason.map { " — " + HTMLText.escape($0) } ?? "")</td></tr>
            """
        }.joined()
        return """
            <h2>Profit sharing</h2><p class="card" id="sharing">Shared <span class="amount" id="shared">\(Self.format(shared))</span>\
            \(left.map { ", left to share or refund <span class=\"amount\" id=\"shareable\">\(Self.format($0))</span>" } ?? "")\
            \(finished ? " · sharing finished" : "")</p>\
            \(Self.table("splits", ["Requested", "out_order_no", "Receiver", "Amount", "Result", "Returned", "Split"], rows))\
            \(returns.isEmpty ? "" : Self.table("split-returns", ["Requested", "out_return_no", "From", "Amount", "Status"], returnRows))
            """
    }

    static func splitStatus(_ split: StoredSplit) -> String {
        "<span class=\"badge \(HTMLText.escape(split.status.rawValue))\">\(HTMLText.escape(split.status.rawValue))</span>"
            + (split.failureReason.map { " <span class=\"muted\">\(HTMLText.escape($0))</span>" } ?? "")
    }
}

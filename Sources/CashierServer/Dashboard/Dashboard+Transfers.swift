import Cashier
import CashierHTTP
import CashierWire
import Foundation

/// Transfers out (WeChat Pay's 商家转账), newest first: to whom, how much, where each stands.
/// Read only: transfers are made and cancelled through the API (``TransferService``).
extension Dashboard {
    func transfers(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let offset = min(max(Int(request.queryValue("offset") ?? "") ?? 0, 0), 100_000)
        let page = try await ledger.transfers.list(caller: .platform, limit: 100, offset: offset)
        let rows = page.data.map { transfer in
            """
            <tr class="transfer" data-id="\(HTMLText.escape(transfer.id))">\
            <td>\(when(Date(timeIntervalSince1970: TimeInterval(transfer.created))))</td>\
            <td><code>\(HTMLText.escape(transfer.out_bill_no))</code></td>\
            <td><code>\(HTMLText.escape(transfer.openid))</code></td>\
            <td>\(HTMLText.escape(transfer.remark))</td>\
            <td class="amount">\(HTMLText.escape(transfer.amount.amount)) \(HTMLText.escape(transfer.amount.currency))</td>\
            <td><span class="badge \(HTMLText.escape(transfer.status))">\(HTMLText.escape(transfer.status))</span>\
            \(transfer.failure_reason.map { " <span class=\"muted\">\(HTMLText.escape($0))</span>" } ?? "")</td></tr>
            """
        }.joined()
        let more = page.has_more ? "<p><a href=\"/dashboard/transfers?offset=\(offset + 100)\">Older</a></p>" : ""
        return self.page(
            "Transfers", session,
            """
            <h1 id="transfers">Transfers</h1>\
            <p class="muted">Money paid out of your WeChat Pay account to people (商家转账). Each waits for its payee to confirm \
            in WeChat; unconfirmed for 24 hours, WeChat fails it.</p>\
            \(Self.table("transfer-list", ["Created", "out_bill_no", "Payee", "Remark", "Amount", "Status"], rows))\(more)
            """)
    }
}

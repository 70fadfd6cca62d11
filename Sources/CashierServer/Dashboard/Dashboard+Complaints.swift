import Cashier
import CashierHTTP
import CashierStore
import CashierWire
import Foundation

/// Payers' complaints: the inbox, nearest deadline first with the time left, and a complaint's
/// page — what the payer wrote, the conversation with its images, the answer form (with
/// images), completing it, and the decision on a refund asked for. Every action goes through
/// ``ComplaintService``, checked as the API's are.
extension Dashboard {
    func complaints(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let filter = request.queryValue("state") ?? "open"
        let page = try await ledger.complaints.list(
            caller: .platform, state: filter == "all" ? nil : filter, limit: 100, offset: Int(request.queryValue("offset") ?? "") ?? 0)
        let now = clock.now()
        let tabs = ["open", "pending", "processing", "processed", "all"].map { name in
            "<a href=\"/dashboard/complaints?state=\(name)\"\(name == filter ? " aria-current=\"page\"" : "")>\(name)</a>"
        }.joined()
        let rows = page.data.map { complaint in
            """
            <tr class="complaint\(complaint.overdue ? " flagged" : "")" data-id="\(HTMLText.escape(complaint.id))">\
            <td class="left">\(Self.timeLeft(complaint, now: now))</td>\
            <td><a href="/dashboard/complaints/\(HTMLText.escape(complaint.id))">\(HTMLText.escape(complaint.summary.isEmpty ? complaint.provider_complaint_id : complaint.summary))</a>\
            \(complaint.awaiting_reply ? " <span class=\"badge pending\">payer wrote</span>" : "")</td>\
            <td>\(HTMLText.escape(String(complaint.detail.prefix(60))))</td>\
            <td>\(complaint.order_id.map { "<a href=\"/dashboard/orders/\(HTMLText.escape($0))\"><code>\(HTMLText.escape(complaint.out_trade_no ?? $0))</code></a>" } ?? "<code>\(HTMLText.escape(complaint.out_trade_no ?? "—"))</code>")</td>\
            <td class="amount">\(complaint.requested_refund.map { HTMLText.escape($0.amount) } ?? "")</td>\
            <td><span class="badge \(HTMLText.escape(complaint.state))">\(HTMLText.escape(complaint.state))</span></td></tr>
            """
        }.joined()
        return self.page(
            "Complaints", session,
            """
            <h1 id="complaints">Complaints</h1>\
            <p class="muted">WeChat Pay wants an answer within 24 hours and the complaint handled within 72; past either it steps in \
            and may refund the payer from your funds. The nearest deadline comes first.</p><p class="filters">\(tabs)</p>\
            \(Self.table("complaint-list", ["Time left", "Complaint", "The payer wrote", "Order", "Refund asked", "State"], rows))
            """)
    }

    /// How long until the next deadline (`5h 12m to answer`), how long past it, or when it was handled.
    static func timeLeft(_ complaint: ComplaintJSON, now: Date) -> String {
        guard complaint.state != "processed" else { return "<span class=\"muted\">handled</span>" }
        let deadline = complaint.state == "pending" ? complaint.respond_by : complaint.settle_by
        let what = complaint.state == "pending" ? "to answer" : "to handle"
        let seconds = Int(deadline) - Int(now.timeIntervalSince1970)
        func span(_ value: Int) -> String { value >= 3600 ? "\(value / 3600)h \(value % 3600 / 60)m" : "\(max(value, 0) / 60)m" }
        return seconds >= 0
            ? "<span class=\"deadline\">\(span(seconds)) \(what)</span>"
            : "<span class=\"badge failed overdue\">overdue by \(span(-seconds))</span>"
    }

    func complaint(_ id: String, _ session: DashboardSessions.Session, request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let complaint: ComplaintJSON
        do {
            complaint = try await ledger.complaints.view(id, caller: .platform)
        } catch is APIError {
            return Self.notice(status: 404, "No such complaint", "There is no complaint \(id).")
        }
        let escaped = HTMLText.escape(id)
        let now = clock.now()
        func images(_ paths: [String]) -> String {
            paths.map { path in
                let index = path.split(separator: "/").last.map(String.init) ?? "0"
                return
                    "<a href=\"/dashboard/complaints/\(escaped)/images/\(index)\"><img src=\"/dashboard/complaints/\(escaped)/images/\(index)\" alt=\"image \(index)\" width=\"160\"></a>"
            }.joined()
        }
        let steps = (complaint.conversation ?? []).map { message in
            """
            <li class="message \(HTMLText.escape(message.author))"><strong>\(HTMLText.escape(message.author))</strong> \
            <span class="muted">\(time(Date(timeIntervalSince1970: TimeInterval(message.created)))) · \(HTMLText.escape(message.kind))</span>\
            <p>\(HTMLText.escape(message.text))</p>\(images(message.images))</li>
            """
        }.joined()
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">"
        var forms = ""
        if complaint.state != "processed" || complaint.awaiting_reply {
            forms += """
                <form method="post" action="/dashboard/complaints/\(escaped)/reply" enctype="multipart/form-data" class="card" id="reply-form">\(csrf)\
                <p><strong>Answer the payer</strong> (at most 200 characters)<br><textarea name="text" id="reply-text" maxlength="200" required cols="60" rows="3"></textarea></p>\
                <p><label>Images (JPG, PNG or BMP, up to 4, 2 MB each) <input type="file" name="images" id="reply-images" multiple accept="image/jpeg,image/png,image/bmp"></label></p>\
                <p><input name="link_url" id="reply-link" placeholder="https://… (optional)" size="40"> <input name="link_text" id="reply-link-text" placeholder="link text" size="16"></p>\
                <button type="submit" id="reply">Send answer</button></form>
                """
        }
        if complaint.problem_type == "REFUND", complaint.refund_decision == nil, complaint.state != "processed" {
            forms += """
                <form method="post" action="/dashboard/complaints/\(escaped)/refund" class="card" id="approve-form">\(csrf)\
                <input type="hidden" name="decision" value="approve"><strong>Refund asked:</strong> \
                <input name="amount" id="approve-amount" size="8" value="\(HTMLText.escape(complaint.requested_refund?.amount ?? ""))"> \
                <button type="submit" id="approve">Approve and refund</button></form>\
                <form method="post" action="/dashboard/complaints/\(escaped)/refund" class="card" id="reject-form">\(csrf)\
                <input type="hidden" name="decision" value="reject"><input name="reason" id="reject-reason" placeholder="why (the payer reads it)" size="40" required> \
                <button type="submit" class="secondary" id="reject">Refuse the refund</button></form>
                """
        }
        if complaint.state != "processed" {
            forms += """
                <form method="post" action="/dashboard/complaints/\(escaped)/complete" class="card">\(csrf)\
                <button type="submit" class="secondary" id="complete">Mark it handled</button></form>
                """
        }
        let message = request.queryValue("message").map { "<p class=\"card\" id=\"message\">\(HTMLText.escape($0))</p>" } ?? ""
        let order = complaint.order_id.map {
            "<a href=\"/dashboard/orders/\(HTMLText.escape($0))\" id=\"order\"><code>\(HTMLText.escape(complaint.out_trade_no ?? $0))</code></a>"
        }
        return page(
            "Complaint \(complaint.provider_complaint_id)", session,
            """
            <h1>Complaint <code id="provider-id">\(HTMLText.escape(complaint.provider_complaint_id))</code> \
            <span class="badge \(HTMLText.escape(complaint.state))" id="state">\(HTMLText.escape(complaint.state))</span></h1>\(message)\
            <div class="card\(complaint.overdue ? " flagged" : "")"><p id="time-left">\(Self.timeLeft(complaint, now: now))</p>\
            <p><strong>\(HTMLText.escape(complaint.summary))</strong>: <span id="detail">\(HTMLText.escape(complaint.detail))</span></p>\
            <p>Order \(order ?? "<code>\(HTMLText.escape(complaint.out_trade_no ?? "—"))</code> (not taken through Cashier)") · \
            \(complaint.amount.map { "paid \(HTMLText.escape($0.amount)) \(HTMLText.escape($0.currency))" } ?? "")\
            \(complaint.requested_refund.map { " · refund asked <span id=\"requested\">\(HTMLText.escape($0.amount))</span>" } ?? "")\
            \(complaint.refund_decision.map { " · refund <span id=\"decision\">\(HTMLText.escape($0))</span>" } ?? "")\
            \(complaint.payer_phone.map { " · payer's phone \(HTMLText.escape($0))" } ?? "")\
            \(complaint.complaint_count > 1 ? " · <span class=\"badge failed\">complained \(complaint.complaint_count) times</span>" : "")</p>\
            <p class="muted">Complained \(time(Date(timeIntervalSince1970: TimeInterval(complaint.created)))); answer by \
            \(time(Date(timeIntervalSince1970: TimeInterval(complaint.respond_by)))), handle by \(time(Date(timeIntervalSince1970: TimeInterval(complaint.settle_by)))).</p>\
            \(images(complaint.images))</div>\(forms)<h2>Conversation</h2><ol id="conversation">\(steps)</ol>
            """)
    }

    func complaintImage(_ id: String, _ index: String) async -> HTTPServerResponse {
        do {
            let image = try await ledger.complaints.image(id, index: index, caller: .platform)
            return HTTPServerResponse(
                status: 200, headers: ["Content-Type": image.contentType, "Cache-Control": "private, max-age=300"], body: image.bytes)
        } catch {
            return Self.notice(status: 404, "No such image", "The image could not be fetched from the provider.")
        }
    }
}

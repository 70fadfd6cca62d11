import Cashier
import CashierHTTP
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// The dashboard's recurring payments: the agreements and subscriptions lists, an agreement's
/// page with its subscriptions and their charges, a subscription's page with the staff's forms —
/// pause, resume, cancel, retry — which move it through the same service the API calls, and
/// those forms refused without a session or its CSRF token.
@Suite struct RecurringDashboardTests {
    /// An agreement signed (active) with a subscription of 9.90 a month under it and its first
    /// period's charge open, written straight into the store (no provider involved).
    static func seed(_ fixture: ServerFixture, paused: Bool = false) async throws
        -> (agreement: StoredAgreement, subscription: StoredSubscription, invoice: StoredInvoice)
    {
        let store = fixture.store
        let now = Date()
        let (reserved, _) = try await store.reserveAgreement(
            NewAgreement(
                merchant: nil, provider: "wechat.v2", method: "wechat.app", externalNo: "c" + UUID().uuidString.prefix(12), payer: nil,
                planID: "12535", description: "会员月卡", periodUnit: .month, periodCount: 1,
                singleLimit: Money(minorUnits: 3000, currency: .cny), firstChargeAt: nil), now: now)
        let agreement = try await store.moveAgreement(
            reserved.id, to: AgreementProgress(status: .active, providerState: "0", providerAgreementID: "2000" + reserved.externalNo),
            now: now
        ).agreement
        let subscription = try await store.createSubscription(
            NewSubscription(
                agreementID: agreement.id, amount: Money(minorUnits: 990, currency: .cny), description: "会员月卡 9.90",
                intervalUnit: .month, intervalCount: 1, anchor: now.addingTimeInterval(-60), maxAttempts: 3), now: now)
        let invoice = try #require(try await fixture.server.app.ledger.recurring.open(subscription, whileSigning: false))
        if paused { _ = try await store.changeSubscription(subscription.id, to: .paused, reason: nil, now: now) }
        return (agreement, try #require(try await store.subscription(id: subscription.id)), invoice)
    }

    static func form(_ url: String, cookie: String?, _ fields: [(String, String)]) async throws -> HTTPResponse {
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        return try await ComplaintDashboardTests.post(
            url, cookie: cookie ?? "", type: "application/x-www-form-urlencoded", body: Array(body.utf8))
    }

    /// The message a form's redirect carries back to the page.
    static func message(_ response: HTTPResponse) -> String {
        let location = response.headers["Location"] ?? ""
        return location.components(separatedBy: "?message=").last?.removingPercentEncoding ?? ""
    }

    @Test(.timeLimit(.minutes(2))) func theListsAndPagesShowAgreementsSubscriptionsAndTheirCharges() async throws {
        let fixture = try await ServerFixture()
        let (agreement, subscription, invoice) = try await Self.seed(fixture)
        let base = fixture.server.baseURL.absoluteString
        let cookie = try await RecordsAndExportsTests.signIn(base, secret: fixture.keys.secret)

        let list = try await ComplaintDashboardTests.page(base + "/dashboard/agreements", cookie: cookie)
        #expect(list.contains(#"data-id="\#(agreement.id)""#) && list.contains("href=\"/dashboard/agreements/\(agreement.id)\""))
        #expect(list.contains("wechat.app") && list.contains("会员月卡") && list.contains(#"<span class="badge active">active</span>"#))
        #expect(list.contains("1 month") && list.contains("¥30.00"))
        // The header links to both lists.
        #expect(list.contains(#"href="/dashboard/agreements">Agreements</a>"#) && list.contains(#"href="/dashboard/subscriptions">"#))

        let page = try await ComplaintDashboardTests.page(base + "/dashboard/agreements/\(agreement.id)", cookie: cookie)
        #expect(page.contains(agreement.externalNo) && page.contains("2000" + agreement.externalNo))
        #expect(page.contains("href=\"/dashboard/subscriptions/\(subscription.id)\"") && page.contains("¥9.90 every 1 month"))
        // Its charge: the period, a link to its order, the amount, where it stands.
        #expect(page.contains(#"data-id="\#(invoice.id)""#) && page.contains("href=\"/dashboard/orders/\(invoice.orderID)\""))
        #expect(page.contains(#"<span class="badge open">open</span>"#))

        let subscriptions = try await ComplaintDashboardTests.page(base + "/dashboard/subscriptions", cookie: cookie)
        #expect(subscriptions.contains(#"data-id="\#(subscription.id)""#) && subscriptions.contains("会员月卡 9.90"))
        let detail = try await ComplaintDashboardTests.page(base + "/dashboard/subscriptions/\(subscription.id)", cookie: cookie)
        #expect(detail.contains(#"id="pause-form""#) && detail.contains(#"id="cancel-form""#) && detail.contains(#"id="retry-form""#))
        #expect(!detail.contains(#"id="resume-form""#) && detail.contains("href=\"/dashboard/orders/\(invoice.orderID)\""))
        #expect(detail.contains(#"name="csrf" value=""#))

        for missing in ["/dashboard/agreements/agr_none", "/dashboard/subscriptions/sub_none"] {
            #expect(try await RecordsAndExportsTests.get(base + missing, cookie: cookie).status == 404, "\(missing)")
        }
        await fixture.stop()
    }

    @Test(.timeLimit(.minutes(2))) func theStaffsFormsPauseResumeRetryAndCancel() async throws {
        let fixture = try await ServerFixture()
        let (_, subscription, invoice) = try await Self.seed(fixture)
        let base = fixture.server.baseURL.absoluteString
        let cookie = try await RecordsAndExportsTests.signIn(base, secret: fixture.keys.secret)
        let url = base + "/dashboard/subscriptions/\(subscription.id)"
        let csrf = try ComplaintDashboardTests.csrf(try await ComplaintDashboardTests.page(url, cookie: cookie))
        func act(_ action: String, _ fields: [(String, String)] = []) async throws -> String {
            let answer = try await Self.form(url + "/" + action, cookie: cookie, [("csrf", csrf)] + fields)
            #expect(answer.status == 303 && answer.headers["Location"]?.hasPrefix("/dashboard/subscriptions/\(subscription.id)?") == true)
            return Self.message(answer)
        }
        func status() async throws -> StoredSubscription.Status? { try await fixture.store.subscription(id: subscription.id)?.status }

        let pausing = try await act("pause")
        let pausedStatus = try await status()
        #expect(pausing.hasPrefix("Paused") && pausedStatus == .paused, "\(pausing)")
        let paused = try await ComplaintDashboardTests.page(url + "?message=Paused", cookie: cookie)
        #expect(paused.contains(#"id="resume-form""#) && !paused.contains(#"id="pause-form""#) && paused.contains(#"id="message">Paused<"#))
        let resuming = try await act("resume")
        let resumed = try await status()
        #expect(resuming == "Resumed." && resumed == .active, "\(resuming)")

        let canceling = try await act("cancel", [("reason", "payer asked")])
        let canceledStatus = try await status()
        #expect(canceling.hasPrefix("Canceled") && canceledStatus == .canceled, "\(canceling)")
        #expect(try await fixture.store.subscription(id: subscription.id)?.cancelReason == "payer asked")
        let canceled = try await ComplaintDashboardTests.page(url, cookie: cookie)
        #expect(!canceled.contains(#"id="cancel-form""#) && !canceled.contains(#"id="pause-form""#) && canceled.contains("payer asked"))
        // A move it cannot make from where it is: said clearly on the page, nothing changed.
        let refused = try await act("resume")
        let stillCanceled = try await status()
        #expect(refused.hasPrefix("Not done") && stillCanceled == .canceled, "\(refused)")
        let escaped = refused.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let refusal = try await ComplaintDashboardTests.page(url + "?message=" + escaped, cookie: cookie)
        #expect(refusal.contains(#"class="card error" id="message">Not done"#))
        #expect(try await act("pause").hasPrefix("Not done"))
        // Retried now, on another subscription: its open charge is attempted at once (the sandbox knows
        // no such contract, so WeChat Pay refuses it for good and the subscription ends).
        let (_, other, open) = try await Self.seed(fixture)
        let otherURL = base + "/dashboard/subscriptions/\(other.id)"
        let retried = try await Self.form(otherURL + "/retry", cookie: cookie, [("csrf", csrf)])
        #expect(retried.status == 303 && Self.message(retried).hasPrefix("Retried"), "\(Self.message(retried))")
        let after = try #require(try await fixture.store.invoice(id: open.id))
        #expect(after.attempts == open.attempts + 1 && after.status == .failed, "\(after)")
        #expect(try await fixture.store.subscription(id: other.id)?.status == .canceled)
        await fixture.stop()
    }

    @Test(.timeLimit(.minutes(2))) func aFormWithoutTheSessionOrItsTokenIsRefused() async throws {
        let fixture = try await ServerFixture()
        let (_, subscription, _) = try await Self.seed(fixture)
        let base = fixture.server.baseURL.absoluteString
        let cookie = try await RecordsAndExportsTests.signIn(base, secret: fixture.keys.secret)
        let url = base + "/dashboard/subscriptions/\(subscription.id)"
        let csrf = try ComplaintDashboardTests.csrf(try await ComplaintDashboardTests.page(url, cookie: cookie))
        for action in ["pause", "cancel", "retry"] {
            // No session (the page's token alone), the session without its token, the session with another token.
            #expect(try await Self.form(url + "/" + action, cookie: nil, [("csrf", csrf)]).status == 403)
            #expect(try await Self.form(url + "/" + action, cookie: cookie, []).status == 403)
            #expect(try await Self.form(url + "/" + action, cookie: cookie, [("csrf", String(csrf.reversed()))]).status == 403)
        }
        #expect(try await fixture.store.subscription(id: subscription.id)?.status == .active)
        // The pages send a browser without a session to sign in.
        let signedOut = try await RecordsAndExportsTests.get(url, cookie: "")
        #expect(signedOut.status == 303 && signedOut.headers["Location"]?.hasPrefix("/dashboard/login") == true)
        await fixture.stop()
    }
}

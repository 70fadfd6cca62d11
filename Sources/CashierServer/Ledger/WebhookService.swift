import Cashier
import CashierStore
import Foundation

/// The deliveries to the merchant's webhook endpoint sent again after it was down: the same
/// event id, signed anew when sent, each re-send in its order's log with who asked.
struct WebhookService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }

    /// 409 when no endpoint is configured: there is nowhere to send anything.
    func requireEndpoint() throws {
        guard ledger.configuration.webhook != nil else {
            throw APIError(status: 409, code: "no_webhook_endpoint", message: "no webhook URL is configured: there is nowhere to send it")
        }
    }

    /// Webhook `id`, due again at the webhook job's next run.
    func resend(_ id: String, by actor: String) async throws -> OutboxMessage {
        try requireEndpoint()
        guard let message = try await store.resendWebhook(id, now: ledger.clock.now()) else {
            throw APIError(status: 404, code: "not_found", message: "no webhook \(id)")
        }
        try await logResend([message], actor: actor)
        return message
    }

    /// Every delivery queued in `range` that was tried and not delivered, sent again.
    func resendFailed(in range: ReportRange, by actor: String) async throws -> [OutboxMessage] {
        try requireEndpoint()
        let messages = try await store.resendFailedWebhooks(from: range.start, until: range.end, now: ledger.clock.now())
        try await logResend(messages, actor: actor)
        return messages
    }

    /// An operator's re-send, in each order's log.
    private func logResend(_ messages: [OutboxMessage], actor: String) async throws {
        for message in messages {
            try await store.append(
                EventRecord(kind: .webhookResent, detail: Ledger.detail(["event": message.id, "type": message.type, "by": actor])),
                to: message.orderID, now: ledger.clock.now())
        }
    }
}

import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// `/v1/webhooks`: the deliveries to the merchant's endpoint, and sending them again after it
/// was down (the same event id, signed anew when sent) — secret key only.
extension MerchantAPI {
    struct WebhookJSON: Encodable {
        let id: String
        let object = "webhook"
        let type: String
        let order_id: String
        /// `delivered`, `failed` (tried, not delivered yet) or `pending`.
        let state: String
        let attempts: Int
        let last_error: String?
        let next_attempt: Int64?
        let delivered: Int64?
        let created: Int64?

        init(_ message: OutboxMessage) {
            id = message.id
            type = message.type
            order_id = message.orderID
            state = message.state.rawValue
            attempts = message.attempts
            last_error = message.lastError
            next_attempt = message.deliveredAt == nil ? Int64(message.nextAttemptAt.timeIntervalSince1970) : nil
            delivered = message.deliveredAt.map { Int64($0.timeIntervalSince1970) }
            created = message.createdAt.map { Int64($0.timeIntervalSince1970) }
        }
    }

    /// `POST /v1/webhooks/resend`'s body: the days whose failed deliveries to send again.
    struct WebhookRangeBody: Decodable {
        let from: String
        let to: String
    }

    /// `POST /v1/webhooks/resend`'s answer.
    struct ResendAnswer: Encodable {
        let resent: Int
        let data: [WebhookJSON]
    }

    /// `GET /v1/webhooks?state=failed&from=…&to=…&order_id=…&limit=…&starting_after=…`.
    func listWebhooks(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = Self.platformOnly(identity) { return refusal }
        do {
            guard let limit = Int(request.queryValue("limit") ?? "20"), RequestBounds.listLimit.contains(limit) else {
                throw RequestProblem("limit must be a whole number, 1 to 100")
            }
            var query = WebhookQuery(orderID: request.queryValue("order_id"), after: request.queryValue("starting_after"), limit: limit + 1)
            if let state = request.queryValue("state") {
                guard let parsed = WebhookQuery.State(rawValue: state) else {
                    throw RequestProblem("state must be delivered, failed or pending")
                }
                query.state = parsed
            }
            if let range = try ReportRange.given(
                from: request.queryValue("from"), to: request.queryValue("to"), timeZone: configuration.timeZone)
            {
                (query.from, query.until) = (range.start, range.end)
            }
            let page = try await store.webhooks(matching: query)
            return .json(RecordPage(data: page.prefix(limit).map(WebhookJSON.init), has_more: page.count > limit))
        } catch {
            return Self.failure(error)
        }
    }

    /// `POST /v1/webhooks/{id}/resend`: sent again at the webhook job's next run.
    func resendWebhook(_ request: HTTPServerRequest, id: String, actor: String = "api") async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = Self.platformOnly(identity) { return refusal }
        guard configuration.webhook != nil else {
            return .error(status: 409, code: "no_webhook_endpoint", message: "no webhook URL is configured: there is nowhere to send it")
        }
        do {
            guard let message = try await store.resendWebhook(id, now: clock.now()) else {
                return .error(status: 404, code: "not_found", message: "no webhook \(id)")
            }
            try await logResend([message], actor: actor)
            return .json(WebhookJSON(message))
        } catch {
            return Self.failure(error)
        }
    }

    /// `POST /v1/webhooks/resend {"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}`: every delivery
    /// queued on those days that was tried and not delivered, sent again.
    func resendFailedWebhooks(_ request: HTTPServerRequest, actor: String = "api") async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = Self.platformOnly(identity) { return refusal }
        guard configuration.webhook != nil else {
            return .error(status: 409, code: "no_webhook_endpoint", message: "no webhook URL is configured: there is nowhere to send it")
        }
        do {
            let body = try RequestProblem.decode(
                WebhookRangeBody.self, from: request, expected: #"{"from":"2026-12-01","to":"2026-12-01"}"#)
            let range = try ReportRange(from: body.from, to: body.to, timeZone: configuration.timeZone)
            let messages = try await store.resendFailedWebhooks(from: range.start, until: range.end, now: clock.now())
            try await logResend(messages, actor: actor)
            return .json(ResendAnswer(resent: messages.count, data: messages.map(WebhookJSON.init)))
        } catch {
            return Self.failure(error)
        }
    }

    /// An operator's re-send, in each order's log.
    private func logResend(_ messages: [OutboxMessage], actor: String) async throws {
        for message in messages {
            try await store.append(
                EventRecord(kind: .webhookResent, detail: Self.detail(["event": message.id, "type": message.type, "by": actor])),
                to: message.orderID, now: clock.now())
        }
    }
}

import ApplePay
public import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

/// Stripe's webhook events: signed with the endpoint's secret (`Stripe-Signature: t=…,v1=…`),
/// retried until answered 2xx, each filed for replays under `{type} {object}` — a PaymentIntent's
/// dispute events under its `pi_…`, `charge.refund.updated` under the refund's `re_…`.
///
/// `refund.created` follows every refund (also one made as in the Dashboard, without Cashier's
/// metadata: `POST /sandbox/stripe/dashboard_refund {"payment_intent":"pi_…","amount":"5.00"}`),
/// `payment_intent.canceled` every cancel (Cashier's voids, and ``expire(_:)``: an
/// authorisation lapsed, `POST /sandbox/stripe/expire {"payment_intent":"pi_…"}`).
///
/// Disputes: `created` opens one (`needs_response`; no money moves — an inquiry, or funds not
/// yet taken), `funds_withdrawn` takes its amount from the merchant (opening it first when none
/// is open), `funds_reinstated` gives it back and closes it `won`, `lost` closes it `lost`.
extension StripeSandbox {
    /// One dispute as Stripe keeps it.
    struct Dispute: Sendable {
        let id: String
        let intent: String
        let amount: Money
        var status: String
        /// Balance transactions: the amount taken (negative) and given back (positive), in order.
        var moves: [Int64]
        let created: Int
    }

    /// Stripe's retries of an unanswered event: over three days, backing off.
    public static let webhookSchedule: [Duration] = [60, 300, 1800, 3600, 7200, 21600, 43200, 86400].map { .seconds($0) }

    /// Sends events to `url`, signed with `secret` (`whsec_…`), from now on.
    public func sendWebhooks(to url: String, secret: String) throws {
        try ApplePay.StripeEvent.checkSecret(secret)
        webhook.withLock { $0 = (url, secret) }
    }

    /// A step of the dispute of PaymentIntent `intent`: `created`, `funds_withdrawn`,
    /// `funds_reinstated` or `lost`. `amount` (by default all that is captured and not refunded)
    /// is the dispute's, taken when it opens.
    /// - Returns: why it cannot happen, or `nil` when its events were sent.
    public func dispute(_ intent: String, event: String, amount: Money? = nil) -> String? {
        guard let entry = core.processor.entry(intent) else { return "no PaymentIntent \(intent)" }
        guard ["created", "funds_withdrawn", "funds_reinstated", "lost"].contains(event) else {
            return "the sandbox's dispute steps are created, funds_withdrawn, funds_reinstated and lost"
        }
        var events: [(String, Dispute)] = []
        var dispute: Dispute
        if let open = disputes.withLock({ $0[intent] }) {
            dispute = open
            if event == "created" { return "PaymentIntent \(intent) is disputed already (\(open.id))" }
        } else {
            guard event == "created" || event == "funds_withdrawn" else { return "PaymentIntent \(intent) has no dispute" }
            let value = amount ?? entry.left
            guard value.isPositive, value.minorUnits <= entry.left.minorUnits else {
                return "PaymentIntent \(intent) has less than \(value) captured and not refunded"
            }
            dispute = Dispute(
                id: "dp_" + SecureRandom.alphanumeric(count: 24), intent: intent, amount: value, status: "needs_response", moves: [],
                created: Int(Date().timeIntervalSince1970))
            events.append(("charge.dispute.created", dispute))
        }
        let open = dispute.status == "needs_response" || dispute.status == "under_review" || dispute.status == "warning_needs_response"
        let withdrawn = dispute.moves.reduce(0, +) < 0
        switch event {
        case "funds_withdrawn":
            guard open, !withdrawn, core.processor.chargeBack(intent, amount: dispute.amount) else {
                return "dispute \(dispute.id) cannot take \(dispute.amount) from PaymentIntent \(intent) now"
            }
            dispute.moves.append(-dispute.amount.minorUnits)
            events.append(("charge.dispute.funds_withdrawn", dispute))
        case "funds_reinstated":
            guard open, withdrawn,
                core.processor.chargeBack(intent, amount: Money(minorUnits: -dispute.amount.minorUnits, currency: dispute.amount.currency))
            else { return "dispute \(dispute.id) has no funds withdrawn to give back" }
            dispute.moves.append(dispute.amount.minorUnits)
            events.append(("charge.dispute.funds_reinstated", dispute))
            dispute.status = "won"
            events.append(("charge.dispute.closed", dispute))
        case "lost":
            guard open else { return "dispute \(dispute.id) is closed already" }
            dispute.status = "lost"
            events.append(("charge.dispute.closed", dispute))
        default: break
        }
        let kept = dispute
        disputes.withLock { $0[intent] = kept }
        for (type, state) in events {
            announce(type, Self.object(state), filedUnder: "\(type) \(intent)")
        }
        return nil
    }

    /// Stripe decides a PaymentIntent it left `processing` (an amount ending in 56): `succeeded`
    /// authorises it (a card the sandbox declines still fails) and sends `payment_intent.succeeded`
    /// — `payment_intent.amount_capturable_updated` for a manual capture —; otherwise it fails,
    /// waits for another payment method as Stripe's do, and `payment_intent.payment_failed` says
    /// so. Each event is filed under `{type} {pi_…}`.
    /// - Returns: why it cannot happen, or `nil` when it was decided.
    public func decide(_ intent: String, succeeded: Bool) async -> String? {
        guard let pending = undecided.withLock({ $0.removeValue(forKey: intent) }) else {
            return "PaymentIntent \(intent) is not processing (only one confirmed for an amount ending in 56 is)"
        }
        if succeeded {
            _ = await authorize(pending.draft, (pending.token, pending.payment), tokenID: nil, idempotencyKey: pending.idempotencyKey)
            if let object = self.intent(intent, expandCharge: false) {
                let type = pending.draft.capture ? "payment_intent.succeeded" : "payment_intent.amount_capturable_updated"
                announce(type, object, filedUnder: "\(type) \(intent)")
                return nil
            }
        } else {
            var failed = pending.draft
            failed.paymentMethod = nil
            failed.lastError = "Your card was declined."
            drafts.withLock { $0[intent] = failed }
        }
        if let draft = drafts.withLock({ $0[intent] }) {
            announce("payment_intent.payment_failed", draftObject(draft), filedUnder: "payment_intent.payment_failed \(intent)")
        }
        return nil
    }

    /// Stripe cancels an uncaptured PaymentIntent whose authorisation lapsed (after seven days):
    /// nothing is held any more, and `payment_intent.canceled` (`cancellation_reason`
    /// `automatic`) says so, filed under `payment_intent.canceled {pi_…}`.
    /// - Returns: why it cannot happen, or `nil` when it was sent.
    public func expire(_ intent: String) async -> String? {
        guard let entry = core.processor.entry(intent) else { return "no PaymentIntent \(intent)" }
        guard entry.status == .authorized, case .succeeded? = try? await core.processor.void(intent, idempotencyKey: UUID().uuidString)
        else { return "PaymentIntent \(intent) holds nothing uncaptured (it is \(entry.status.rawValue))" }
        cancellations.withLock { $0[intent] = "automatic" }
        if let object = self.intent(intent, expandCharge: false) {
            announce("payment_intent.canceled", object, filedUnder: "payment_intent.canceled \(intent)")
        }
        return nil
    }

    /// A dispute as Stripe's API shows it.
    static func object(_ dispute: Dispute) -> [String: Any] {
        [
            "id": dispute.id, "object": "dispute", "amount": dispute.amount.minorUnits,
            "currency": dispute.amount.currency.code.lowercased(), "charge": "ch_" + dispute.intent.dropFirst(3),
            "payment_intent": dispute.intent, "status": dispute.status, "reason": "fraudulent", "created": dispute.created,
            "livemode": false, "is_charge_refundable": false, "metadata": [String: String](),
            // Stripe gives the merchant about a week to answer; the sandbox says seven days.
            "evidence_details": ["due_by": dispute.created + 7 * 86_400, "has_evidence": false, "past_due": false, "submission_count": 0],
            "balance_transactions": dispute.moves.enumerated().map { index, amount in
                [
                    "id": "txn_\(dispute.id.dropFirst(3))_\(index)", "object": "balance_transaction", "amount": amount,
                    "currency": dispute.amount.currency.code.lowercased(),
                    "reporting_category": amount < 0 ? "dispute" : "dispute_reversal",
                ] as [String: Any]
            },
        ]
    }

    /// `GET /v1/disputes?payment_intent=…`.
    func listDisputes(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let intent = request.queryValue("payment_intent")
        let found = disputes.withLock { $0.values.filter { intent == nil || $0.intent == intent } }.sorted { $0.created > $1.created }
        return .json(object: ["object": "list", "url": "/v1/disputes", "has_more": false, "data": found.map(Self.object)])
    }

    /// Posts an event of `type` about `object`, signed, when an endpoint is set up.
    func announce(_ type: String, _ object: [String: Any], filedUnder name: String) {
        guard let (url, secret) = webhook.withLock({ $0 }) else { return }
        let event: [String: Any] = [
            "id": "evt_" + SecureRandom.alphanumeric(count: 24), "object": "event", "api_version": "2024-06-20",
            "created": Int(Date().timeIntervalSince1970), "livemode": false, "pending_webhooks": 1, "type": type,
            "data": ["object": object], "request": ["id": NSNull(), "idempotency_key": NSNull()],
        ]
        guard let body = try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]),
            let signature = try? ApplePay.StripeEvent.signatureHeader(for: body, secret: secret)
        else { return }
        delivery.deliver(
            key: name, url: url, body: body, contentType: "application/json; charset=utf-8", headers: ["Stripe-Signature": signature],
            schedule: Self.webhookSchedule
        ) { (200..<300).contains($0.status) }
    }

    func registerEvents(on router: inout Router) {
        router.add("POST", "/sandbox/stripe/webhook") { request, _ in
            guard let object = SandboxControl.object(request),
                let url = object["url"] as? String, let secret = object["secret"] as? String,
                (try? self.sendWebhooks(to: url, secret: secret)) != nil
            else {
                return SandboxControl.invalid(#"expected {"url":"http://…/notify/stripe","secret":"whsec_…"}"#)
            }
            return .json(["url": url])
        }
        router.add("POST", "/sandbox/stripe/dashboard_refund") { request, _ in
            // A refund made in Stripe's Dashboard: no metadata of Cashier's, announced like any other.
            guard let object = SandboxControl.object(request),
                let intent = object["payment_intent"] as? String
            else { return SandboxControl.invalid(#"expected {"payment_intent":"pi_…","amount":"5.00"}"#) }
            var fields = ["payment_intent": intent]
            if let text = object["amount"] as? String {
                guard let currency = self.core.processor.entry(intent)?.amount.currency,
                    let amount = try? Money(decimal: text, currency: currency)
                else { return .error(status: 400, code: "invalid_amount", message: "amount must be a decimal in the payment's currency") }
                fields["amount"] = String(amount.minorUnits)
            }
            return await self.refund(fields)
        }
        router.add(
            "POST", "/sandbox/stripe/decide",
            ProcessorSandbox.decideHandler(field: "payment_intent", example: "pi_…", decide: { await self.decide($0, succeeded: $1) }) {
                intent in
                .json(object: self.intent(intent, expandCharge: false) ?? self.drafts.withLock({ $0[intent] }).map(self.draftObject) ?? [:])
            })
        router.add("POST", "/sandbox/stripe/expire") { request, _ in
            guard let object = SandboxControl.object(request),
                let intent = object["payment_intent"] as? String
            else { return SandboxControl.invalid(#"expected {"payment_intent":"pi_…"}"#) }
            if let refusal = await self.expire(intent) { return .error(status: 422, code: "invalid_request", message: refusal) }
            return .json(["payment_intent": intent, "event": "payment_intent.canceled"])
        }
        router.add("POST", "/sandbox/stripe/dispute") { request, _ in
            guard let object = SandboxControl.object(request),
                let intent = object["payment_intent"] as? String, let event = object["event"] as? String
            else {
                return SandboxControl.invalid(
                    #"expected {"payment_intent":"pi_…","event":"created"|"funds_withdrawn"|"funds_reinstated"|"lost","amount":"5.00"}"#)
            }
            var amount: Money?
            if let text = object["amount"] as? String {
                guard let currency = self.core.processor.entry(intent)?.amount.currency,
                    let parsed = try? Money(decimal: text, currency: currency)
                else { return .error(status: 400, code: "invalid_amount", message: "amount must be a decimal in the payment's currency") }
                amount = parsed
            }
            if let refusal = self.dispute(intent, event: event, amount: amount) {
                return .error(status: 422, code: "invalid_request", message: refusal)
            }
            return .json(["payment_intent": intent, "event": event])
        }
    }
}

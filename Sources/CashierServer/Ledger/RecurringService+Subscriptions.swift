import Cashier
import CashierStore
import Foundation

/// Subscriptions: created under an agreement that has not ended, paused, resumed, canceled, and
/// a period's open charge retried now (staff, or the API).
extension RecurringService {
    /// Creates a subscription charged every `interval` from `anchor` under agreement `body.agreement`.
    /// - Throws: 404 for an unknown agreement; 409 `invalid_state` for one that has ended; 422 for
    ///   an amount above the agreement's single limit or an interval shorter than its period.
    func createSubscription(_ body: SubscriptionBody, caller: Identity) async throws -> SubscriptionJSON {
        let agreement = try await require(body.agreement, caller: caller)
        guard !agreement.status.isFinal else {
            throw APIError.invalidState("agreement \(agreement.id) is \(agreement.status.rawValue): nothing can be charged under it")
        }
        let currency = try Self.currency(body.currency ?? agreement.singleLimit.currency.code, provider: .applePay)
        guard currency == agreement.singleLimit.currency else {
            throw RequestProblem.unprocessable("currency must be the agreement's, \(agreement.singleLimit.currency.code)")
        }
        try RequestProblem.check(
            body.amount.value, in: 1...agreement.singleLimit.minorUnits, "amount", unit: " minor units (the agreement's single_limit)")
        let (unit, count) =
            try body.interval.map { try Self.period($0, field: "interval") } ?? (agreement.periodUnit, agreement.periodCount)
        guard Self.days(unit, count) >= Self.days(agreement.periodUnit, agreement.periodCount) else {
            throw RequestProblem.unprocessable(
                "interval must be at least the agreement's period (\(agreement.periodCount) \(agreement.periodUnit.rawValue)): the provider takes one charge per period"
            )
        }
        let attempts = body.max_attempts ?? 4
        try RequestProblem.check(attempts, in: 1...10, "max_attempts")
        let description = body.description ?? agreement.description
        guard (1...128).contains(description.unicodeScalars.count), !Self.hasControlCharacters(description) else {
            throw RequestProblem("description must be 1 to 128 characters, none of them control characters")
        }
        let now = clock.now()
        let anchor = body.anchor.map { Date(timeIntervalSince1970: TimeInterval($0.value)) } ?? agreement.firstChargeAt ?? now
        do {
            let subscription = try await store.createSubscription(
                NewSubscription(
                    agreementID: agreement.id, amount: Money(minorUnits: body.amount.value, currency: currency), description: description,
                    intervalUnit: unit, intervalCount: count, anchor: anchor, maxAttempts: attempts), now: now)
            return SubscriptionJSON(subscription, invoices: [])
        } catch let error as StoreError where error.code == .conflict {
            throw APIError.invalidState(error.message)
        }
    }

    /// Subscription `id` with its invoices.
    func viewSubscription(_ id: String, caller: Identity) async throws -> SubscriptionJSON {
        let subscription = try await requireSubscription(id, caller: caller)
        return SubscriptionJSON(subscription, invoices: try await store.invoices(subscriptionID: id))
    }

    /// Subscriptions (under `agreement` when given), newest first.
    func listSubscriptions(agreement: String?, caller: Identity, limit: Int, offset: Int) async throws -> RecordPage<SubscriptionJSON> {
        let found = try await store.subscriptions(agreementID: agreement, merchant: caller.merchant, limit: limit + 1, offset: offset)
        return RecordPage(fetched: found, limit: limit) { SubscriptionJSON($0) }
    }

    /// Pauses (`paused`), resumes (`active`) or cancels (`canceled`) subscription `id`.
    /// - Throws: 409 `invalid_state` when it cannot move so from where it is.
    func changeSubscription(_ id: String, to status: StoredSubscription.Status, reason: String?, caller: Identity) async throws
        -> SubscriptionJSON
    {
        try Self.checkReason(reason)
        _ = try await requireSubscription(id, caller: caller)
        do {
            let (subscription, _) = try await store.changeSubscription(
                id, to: status, reason: reason.map { String($0.prefix(200)) }, now: clock.now())
            return SubscriptionJSON(subscription, invoices: try await store.invoices(subscriptionID: id))
        } catch let error as StoreError where error.code == .conflict {
            throw APIError.invalidState(error.message)
        }
    }

    /// Charges subscription `id`'s open invoice now rather than at its next attempt.
    /// - Throws: 409 `invalid_state` when none is open.
    func retry(_ id: String, caller: Identity) async throws -> SubscriptionJSON {
        let subscription = try await requireSubscription(id, caller: caller)
        guard let open = try await store.invoices(subscriptionID: id).first(where: { $0.status == .open }) else {
            throw APIError.invalidState("subscription \(id) has no charge open to retry")
        }
        try await store.deferInvoice(open.id, until: clock.now(), now: clock.now())
        if let current = try await store.invoice(id: open.id) { try await charge(current) }
        return SubscriptionJSON(
            try await store.subscription(id: id) ?? subscription, invoices: try await store.invoices(subscriptionID: id))
    }

    func requireSubscription(_ id: String, caller: Identity) async throws -> StoredSubscription {
        guard let subscription = try await store.subscription(id: id), caller.merchant == nil || subscription.merchant == caller.merchant
        else { throw APIError(status: 404, code: "not_found", message: "no subscription \(id) for these credentials") }
        return subscription
    }

    /// A period's length in days, roughly (a month 28, a year 365): what "at least as long" compares.
    static func days(_ unit: StoredAgreement.PeriodUnit, _ count: Int) -> Int {
        switch unit {
        case .day: count
        case .week: 7 * count
        case .month: 28 * count
        case .year: 365 * count
        }
    }
}

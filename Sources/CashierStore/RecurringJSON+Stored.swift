import Cashier
public import CashierWire

extension AgreementJSON {
    /// The agreement as the API and its webhooks give it (`launch` only in the answer to its creation).
    public init(_ agreement: StoredAgreement, launch: AgreementLaunchJSON? = nil) {
        self.init(
            id: agreement.id, provider: agreement.provider, method: agreement.method, status: agreement.status.rawValue,
            external_no: agreement.externalNo, provider_agreement_id: agreement.providerAgreementID, plan_id: agreement.planID,
            description: agreement.description, period: Period(unit: agreement.periodUnit.rawValue, count: agreement.periodCount),
            single_limit: Amount(agreement.singleLimit), provider_state: agreement.providerState, end_reason: agreement.endReason,
            launch: launch, merchant: agreement.merchant, created: Int64(agreement.createdAt.timeIntervalSince1970),
            activated: agreement.activatedAt.map { Int64($0.timeIntervalSince1970) },
            ended: agreement.endedAt.map { Int64($0.timeIntervalSince1970) })
    }
}

extension SubscriptionJSON {
    /// The subscription as the API and its webhooks give it (`invoices` when read one at a time).
    public init(_ subscription: StoredSubscription, invoices: [StoredInvoice]? = nil) {
        self.init(
            id: subscription.id, agreement: subscription.agreementID, status: subscription.status.rawValue,
            amount: Amount(subscription.amount), description: subscription.description,
            interval: AgreementJSON.Period(unit: subscription.intervalUnit.rawValue, count: subscription.intervalCount),
            anchor: Int64(subscription.anchor.timeIntervalSince1970), current_period: subscription.period,
            next_charge: subscription.nextChargeAt.map { Int64($0.timeIntervalSince1970) }, max_attempts: subscription.maxAttempts,
            cancel_reason: subscription.cancelReason, merchant: subscription.merchant,
            created: Int64(subscription.createdAt.timeIntervalSince1970),
            canceled: subscription.canceledAt.map { Int64($0.timeIntervalSince1970) }, invoices: invoices?.map(InvoiceJSON.init))
    }
}

extension InvoiceJSON {
    /// The invoice as the API and its webhooks give it.
    public init(_ invoice: StoredInvoice) {
        self.init(
            id: invoice.id, subscription: invoice.subscriptionID, period: invoice.period, order: invoice.orderID,
            amount: Amount(invoice.amount), status: invoice.status.rawValue, attempts: invoice.attempts,
            next_attempt: invoice.status == .open ? invoice.nextAttemptAt.map { Int64($0.timeIntervalSince1970) } : nil,
            last_error: invoice.lastError, period_start: Int64(invoice.periodStart.timeIntervalSince1970),
            created: Int64(invoice.createdAt.timeIntervalSince1970), finished: invoice.finishedAt.map { Int64($0.timeIntervalSince1970) })
    }
}

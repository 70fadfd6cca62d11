import Cashier

/// The notify path of agreement notifications (``RecurringService/wechatContractPath``,
/// ``RecurringService/alipayAgreementPath``): verified by the direct merchant's adapter,
/// answered in its words.
struct AgreementNotifications: NotificationSource {
    let adapter: any Recurring & NotificationSource

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] {
        let reports = try await adapter.agreementEvents(message)
        guard !reports.isEmpty else {
            throw PaymentError(.malformedMessage, provider: adapter.provider, "not an agreement notification")
        }
        return reports.map { .agreement($0) }
    }

    func reply(_ outcome: NotificationOutcome) -> NotificationReply { adapter.reply(outcome) }
    func metricName(refund: Bool) -> String { adapter.metricName(refund: false) + "_agreement" }
}

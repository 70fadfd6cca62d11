import Cashier

/// Alipay's application gateway (``SplitService/alipayGatewayPath``), where its message service
/// sends `alipay.trade.order.settle.notify` and a payer's unsign in the wallet (`dut_user_unsign`):
/// verified by the direct merchant's adapter, answered in its words.
struct AlipayGatewayNotifications: NotificationSource {
    let adapter: any Splitting & NotificationSource

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] {
        if let recurring = adapter as? any Recurring {
            let agreements = try await recurring.agreementEvents(message)
            if !agreements.isEmpty { return agreements.map { .agreement($0) } }
        }
        return try await adapter.splitEvents(message)
    }
    func reply(_ outcome: NotificationOutcome) -> NotificationReply { adapter.reply(outcome) }
    func metricName(refund: Bool) -> String { adapter.metricName(refund: false) + "_split" }
}

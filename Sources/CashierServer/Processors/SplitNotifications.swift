import Cashier

/// The notify path of split notifications (``SplitService/alipayGatewayPath``: Alipay's
/// application gateway, where its message service sends `alipay.trade.order.settle.notify`):
/// verified by the direct merchant's adapter, answered in its words.
struct SplitNotifications: NotificationSource {
    let adapter: any Splitting & NotificationSource

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] { try await adapter.splitEvents(message) }
    func reply(_ outcome: NotificationOutcome) -> NotificationReply { adapter.reply(outcome) }
    func metricName(refund: Bool) -> String { adapter.metricName(refund: false) + "_split" }
}

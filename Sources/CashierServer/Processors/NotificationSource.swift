import Cashier

/// Where a provider's notifications are verified and read: one per notify path (WeChat Pay v2
/// and its refunds, v3, Alipay, each sub-merchant's own, Stripe's and Adyen's webhooks). A
/// message that verifies becomes typed ``ProviderEvent``s, which ``EventApplier`` — the one place
/// a provider's word changes the books — applies; one that does not verify touches nothing.
/// Nothing here knows HTTP: the notify controller hands over the headers and body.
protocol NotificationSource: Sendable {
    /// The message verified (signature, then the merchant it names) and read.
    /// - Throws: when it does not verify.
    func verify(_ message: InboundMessage) async throws -> [ProviderEvent]

    /// The same, on the thread that read the message, when that needs nothing to be waited for
    /// (no certificate to fetch, no lookup): the events or why it does not verify. `nil` (the
    /// default): only ``verify(_:)`` can tell.
    func verifyNow(_ message: InboundMessage) -> Result<[ProviderEvent], any Error>?

    /// The provider's answer to a notification, by what became of it.
    func reply(_ outcome: NotificationOutcome) -> NotificationReply

    /// The answer to a message that did not verify, saying why where the provider shows it
    /// (default: ``reply(_:)`` for ``NotificationOutcome/unverified``).
    func refusal(_ error: any Error) -> NotificationReply

    /// The label `/metrics` counts this source's notifications under (`wechat`, `wechat_refund`, `stripe`…).
    func metricName(refund: Bool) -> String
}

extension NotificationSource {
    func verifyNow(_ message: InboundMessage) -> Result<[ProviderEvent], any Error>? { nil }
    func refusal(_ error: any Error) -> NotificationReply { reply(.unverified) }
}

/// A notification as it arrived: its headers and raw body (signatures cover the bytes).
struct InboundMessage: Sendable {
    let headers: HTTPHeaders
    let body: [UInt8]
}

/// What a provider is answered: WeChat Pay v2's XML, v3's status, Alipay's `success`, Stripe's
/// `{"received":true}`, Adyen's `[accepted]`.
struct NotificationReply: Sendable, Equatable {
    let status: Int
    /// `nil` for an answer with no body (WeChat Pay v3's 204).
    let contentType: String?
    let body: [UInt8]

    init(status: Int = 200, contentType: String?, body: String) {
        self.status = status
        self.contentType = contentType
        self.body = Array(body.utf8)
    }

    init(status: Int, contentType: String?, bytes: [UInt8]) {
        self.status = status
        self.contentType = contentType
        body = bytes
    }

    /// The API's error shape, `{"error":{"code":…,"message":…}}`.
    static func error(status: Int, code: String, message: String) -> NotificationReply {
        NotificationReply(status: status, contentType: "application/json", bytes: APIJSON.error(code: code, message: message))
    }
}

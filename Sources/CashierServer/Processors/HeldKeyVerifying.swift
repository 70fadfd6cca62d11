/// A source whose notifications verify with keys it already holds (WeChat Pay API v2's merchant
/// key, Alipay's public key): nothing to wait for, so a notification is verified on whatever
/// thread reads it — for the merchant server, libmicrohttpd's worker, with no task.
protocol HeldKeyVerifying: NotificationSource {
    /// The notification, verified and read.
    /// - Throws: when it does not verify (nothing is touched).
    func verified(_ message: InboundMessage) throws -> [ProviderEvent]
}

extension HeldKeyVerifying {
    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] {
        try verified(message)
    }

    func verifyNow(_ message: InboundMessage) -> Result<[ProviderEvent], any Error>? {
        Result { try verified(message) }
    }
}

import CashierHTTP

/// An adapter whose notifications verify with keys it already holds (WeChat Pay API v2's
/// merchant key, Alipay's public key): nothing to wait for, so a notification is verified on
/// whatever thread reads it — for the merchant server, libmicrohttpd's worker, with no task.
protocol HeldKeyVerifying: PaymentAdapter {
    /// The notification in `request`, verified.
    /// - Throws: when it does not verify (nothing is touched).
    func verified(_ request: HTTPServerRequest) throws -> ProviderNotification
}

extension HeldKeyVerifying {
    func notification(_ request: HTTPServerRequest) async throws -> ProviderNotification {
        try verified(request)
    }

    func notificationNow(_ request: HTTPServerRequest) -> Result<ProviderNotification, any Error>? {
        Result { try verified(request) }
    }
}

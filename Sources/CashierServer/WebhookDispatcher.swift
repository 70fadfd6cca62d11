public import Cashier
public import CashierCurl
public import CashierStore
public import Foundation

/// Delivers the outbox: each message is POSTed to the merchant's endpoint with a
/// `Cashier-Signature` and its event id (`Cashier-Event-Id`, for deduplication), marked delivered
/// on a 2xx answer, otherwise retried with exponential backoff (capped at an hour) for about a day.
public struct WebhookDispatcher: Sendable {
    public struct Endpoint: Sendable {
        public var url: URL
        /// `whsec_…`: signs every delivery.
        public var secret: String

        public init(url: URL, secret: String) {
            self.url = url
            self.secret = secret
        }
    }

    public let endpoint: Endpoint
    let store: any OrderStore
    let transport: any HTTPTransport
    /// The first retry's delay; each further one doubles, up to an hour.
    let backoff: TimeInterval
    /// After this many attempts a message is parked (about a day with the default backoff).
    let maximumAttempts: Int
    /// Told the result of every attempt (for metrics).
    let onAttempt: @Sendable (_ delivered: Bool) -> Void

    /// Where the dispatcher reads the time (delivery is due, signatures are stamped).
    let clock: any WallClock

    public init(
        endpoint: Endpoint, store: any OrderStore, transport: any HTTPTransport = CurlTransport(), backoff: TimeInterval = 5,
        maximumAttempts: Int = 30, lease: TimeInterval = 120, clock: any WallClock = SystemClock(),
        onAttempt: @escaping @Sendable (_ delivered: Bool) -> Void = { _ in }
    ) {
        self.clock = clock
        self.lease = lease
        self.onAttempt = onAttempt
        self.endpoint = endpoint
        self.store = store
        self.transport = transport
        self.backoff = backoff
        self.maximumAttempts = maximumAttempts
    }

    /// How long a claimed message stays this dispatcher's before another may send it.
    let lease: TimeInterval

    /// Sends what is due now. Each message is signed as it is sent, so one late in a slow batch
    /// still carries a fresh timestamp. - Returns: how many were delivered.
    @discardableResult
    public func deliverDue(limit: Int = 50) async throws -> Int {
        var sent = 0
        let now = clock.now()
        // Claimed for a while: instances sharing the database do not send the same message at
        // once, and a crashed instance's messages come back to the others when the lease ends.
        for message in try await store.claimOutbox(now: now, limit: limit, lease: lease) {
            let body = Array(message.payload.utf8)
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/json")
            headers.add("Cashier-Signature", WebhookSignature.header(body: body, secret: endpoint.secret, timestamp: clock.now()))
            headers.add("Cashier-Event-Id", message.id)
            let status: Int?
            var failure: String?
            do {
                status = try await transport.send(HTTPRequest(method: "POST", url: endpoint.url, headers: headers, body: Data(body))).status
            } catch {
                status = nil
                failure = "no answer from \(endpoint.url.host ?? "the endpoint")"
            }
            let delivered = status.map { (200..<300).contains($0) } ?? false
            onAttempt(delivered)
            if delivered {
                try await store.markDelivered(message.id, at: now)
                sent += 1
            } else {
                let attempts = message.attempts + 1
                let delay = attempts >= maximumAttempts ? 100 * 365 * 86_400 : min(3_600, backoff * pow(2, Double(attempts - 1)))
                try await store.reschedule(
                    message.id, attempts: attempts, nextAttemptAt: now.addingTimeInterval(delay),
                    error: failure ?? status.map { "HTTP \($0)" })
            }
        }
        return sent
    }

    /// Runs ``deliverDue(limit:)`` every `interval` until the task is cancelled.
    public func run(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            _ = try? await deliverDue()
            try? await Task.sleep(for: interval)
        }
    }
}

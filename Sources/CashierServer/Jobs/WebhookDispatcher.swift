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
        /// How many orders' webhooks may be in flight to this endpoint at once (each order's
        /// still one after another), within ``WebhookDispatcher/concurrencyRange``: fewer for an
        /// endpoint that cannot take many requests together, more for one far away.
        public var concurrency: Int

        /// - Parameter concurrency: clamped to ``WebhookDispatcher/concurrencyRange``.
        public init(url: URL, secret: String, concurrency: Int = WebhookDispatcher.defaultConcurrency) {
            self.url = url
            self.secret = secret
            self.concurrency = min(
                max(concurrency, WebhookDispatcher.concurrencyRange.lowerBound), WebhookDispatcher.concurrencyRange.upperBound)
        }
    }

    public let endpoint: Endpoint
    let store: any WebhookOutbox
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
        endpoint: Endpoint, store: any WebhookOutbox, transport: any HTTPTransport = CurlTransport(), backoff: TimeInterval = 5,
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

    /// Sends what is due now: up to `limit` messages claimed at once, several orders' messages in
    /// flight together (the endpoint's ``Endpoint/concurrency``), each order's in the order they were made. Each message
    /// is signed as it is sent, so one late in a slow batch still carries a fresh timestamp.
    /// - Returns: how many were delivered.
    @discardableResult
    public func deliverDue(limit: Int = 50) async throws -> Int {
        try await deliverBatch(limit: limit).delivered
    }

    /// How many deliveries are in flight at once (to different orders) unless the endpoint says.
    /// Each one waits for the endpoint's answer and then for a commit, so the job delivers at most
    /// this many ÷ that time a second. With 8, a busy server (about 1,300 orders a second here,
    /// while its CPU was taken) queued webhooks faster than it sent them and fell further behind
    /// every second; with 16 it keeps up (docs/performance.md, ninth round).
    public static let defaultConcurrency = 16
    /// What ``Endpoint/concurrency`` may be.
    public static let concurrencyRange = 1...64
    /// The longest one delivery may take (the endpoint's answer included): 10 s, or half the
    /// lease when the lease is shorter than 20 s.
    static func requestTimeout(lease: TimeInterval) -> TimeInterval { min(10, lease / 2) }

    /// How many messages one claim takes: no more than can be sent before the claim's lease ends,
    /// even if every delivery takes the whole request timeout — a message whose lease ran out
    /// belongs to whichever instance claims it next, and must not also be sent from here.
    public static func batchSize(limit: Int, lease: TimeInterval, concurrency: Int = defaultConcurrency) -> Int {
        let rounds = Int((lease / requestTimeout(lease: lease)).rounded(.down)) - 1
        return max(1, min(limit, concurrency * max(1, rounds)))
    }

    /// One claim and its sends. - Returns: how many were claimed and how many delivered.
    func deliverBatch(limit: Int) async throws -> (claimed: Int, delivered: Int) {
        let now = clock.now()
        // Claimed for a while: instances sharing the database do not send the same message at
        // once, and a crashed instance's messages come back to the others when the lease ends.
        // A batch is sized so it can be sent within its lease, and a message whose lease is about
        // to end is left for the next claim rather than sent late.
        let claimed = try await store.claimOutbox(
            now: now, limit: Self.batchSize(limit: limit, lease: lease, concurrency: endpoint.concurrency), lease: lease)
        let sendBy = now.addingTimeInterval(lease - Self.requestTimeout(lease: lease))
        var byOrder: [String: [OutboxMessage]] = [:]
        var orders: [String] = []
        for message in claimed {
            if byOrder[message.orderID] == nil { orders.append(message.orderID) }
            byOrder[message.orderID, default: []].append(message)
        }
        let queues = orders.map { byOrder[$0] ?? [] }
        let (delivered, unsent) = try await withThrowingTaskGroup(of: (queue: Int, attempted: Int, delivered: Int).self) { group in
            var next = 0
            var total = 0
            var unsent: [String] = []
            func startNext() {
                guard next < queues.count, !Task.isCancelled else { return }
                let index = next
                next += 1
                group.addTask {
                    var attempted = 0
                    var sent = 0
                    for message in queues[index] {
                        // Past this, the lease could end mid-send: this order's rest waits for the
                        // next claim. Stopping: the send in flight finishes, nothing more starts.
                        guard self.clock.now() < sendBy, !Task.isCancelled else { break }
                        attempted += 1
                        // Not delivered: this order's next messages wait for its retry (given back
                        // unsent, they stay behind it in the outbox).
                        guard try await self.deliver(message) else { break }
                        sent += 1
                    }
                    return (index, attempted, sent)
                }
            }
            for _ in 0..<endpoint.concurrency { startNext() }
            while let result = try await group.next() {
                total += result.delivered
                unsent += queues[result.queue].dropFirst(result.attempted).map(\.id)
                startNext()
            }
            unsent += queues[next...].joined().map(\.id)
            return (total, unsent)
        }
        // Not sent: due again now rather than when the claim ends — the next claim (this
        // instance's, another's, or after a restart) sends them at once.
        try await store.releaseOutbox(unsent, claimedUntil: now.addingTimeInterval(lease), now: clock.now())
        return (claimed.count, delivered)
    }

    /// One attempt at one message: marked delivered on a 2xx, otherwise rescheduled with backoff.
    private func deliver(_ message: OutboxMessage) async throws -> Bool {
        let body = Array(message.payload.utf8)
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        // Signed as it is sent: a message late in a slow batch still carries a fresh timestamp.
        headers.add("Cashier-Signature", WebhookSignature.header(body: body, secret: endpoint.secret, timestamp: clock.now()))
        headers.add("Cashier-Event-Id", message.id)
        let status: Int?
        var failure: String?
        do {
            status = try await transport.send(
                HTTPRequest(
                    method: "POST", url: endpoint.url, headers: headers, body: Data(body),
                    timeout: .milliseconds(Int(Self.requestTimeout(lease: lease) * 1000)))
            ).status
        } catch {
            status = nil
            failure = "no answer from \(endpoint.url.host ?? "the endpoint")"
        }
        let delivered = status.map { (200..<300).contains($0) } ?? false
        let now = clock.now()
        onAttempt(delivered)
        if delivered {
            try await store.markDelivered(message.id, at: now)
        } else {
            let attempts = message.attempts + 1
            let delay = attempts >= maximumAttempts ? OutboxMessage.parkedDelay : min(3_600, backoff * pow(2, Double(attempts - 1)))
            try await store.reschedule(
                message.id, attempts: attempts, nextAttemptAt: now.addingTimeInterval(delay), error: failure ?? status.map { "HTTP \($0)" })
        }
        return delivered
    }

    /// Delivers batches until one comes back short of `limit`: a backlog drains at once rather
    /// than a batch per interval. - Returns: how many were delivered.
    @discardableResult
    public func deliverAllDue(limit: Int = 50) async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let batch = try await deliverBatch(limit: limit)
            total += batch.delivered
            if batch.claimed < limit || batch.delivered == 0 { break }  // drained, or the endpoint is down
        }
        return total
    }

    /// Runs ``deliverDue(limit:)`` every `interval` until the task is cancelled.
    public func run(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            _ = try? await deliverAllDue()
            try? await Task.sleep(for: interval)
        }
    }
}

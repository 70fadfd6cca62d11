public import Cashier
public import Foundation
import Synchronization

/// Delivers a provider's notification to a merchant's `notify_url`, retrying on the provider's
/// schedule until the merchant acknowledges it, and remembers every attempt.
public actor NotificationDelivery {
    /// WeChat Pay's retry intervals after the first attempt: 15s/15s/30s/3m/10m/20m/30m/30m/30m/60m/3h/3h/3h/6h/6h.
    public static let wechatSchedule: [Duration] = [15, 15, 30, 180, 600, 1200, 1800, 1800, 1800, 3600, 10800, 10800, 10800, 21600, 21600]
        .map {
            .seconds($0)
        }

    /// One attempt to deliver.
    public struct Attempt: Sendable {
        public let key: String
        public let url: String
        public let status: Int?
        public let acknowledged: Bool
    }

    private let transport: any HTTPTransport
    private let timeScale: Double
    private var attempts: [Attempt] = []
    /// The last notification filed under each key, for ``replay(key:copies:to:)``.
    private var last: [String: (body: Data, headers: HTTPHeaders, acknowledged: @Sendable (HTTPResponse) -> Bool)] = [:]
    /// Deliveries making an attempt (from ``deliver(key:url:body:contentType:headers:schedule:acknowledged:)``
    /// until the attempt's answer is recorded), those waiting for their next attempt (and when it
    /// is due), and who waits for quiet (``settled(within:)``).
    private let sending = Mutex(Sending())

    private struct Sending {
        var count = 0
        var retrying: [Int: ContinuousClock.Instant] = [:]
        var nextID = 0
        var waiters: [(horizon: Duration, continuation: CheckedContinuation<Void, Never>)] = []

        /// Whether nothing is being sent and no retry is due within `horizon`.
        func quiet(within horizon: Duration) -> Bool {
            let limit = ContinuousClock.now.advanced(by: horizon)
            return count == 0 && retrying.values.allSatisfy { $0 > limit }
        }

        /// The waiters whose quiet has come, taken out.
        mutating func woken() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [(horizon: Duration, continuation: CheckedContinuation<Void, Never>)] = []
            for waiter in waiters {
                if quiet(within: waiter.horizon) { ready.append(waiter.continuation) } else { waiting.append(waiter) }
            }
            waiters = waiting
            return ready
        }
    }

    /// - Parameters:
    ///   - transport: how notifications travel.
    ///   - timeScale: multiplies every retry interval (0.001 turns 15 s into 15 ms for tests).
    public init(transport: any HTTPTransport, timeScale: Double) {
        self.transport = transport
        self.timeScale = timeScale
    }

    /// Starts delivering `body` to `url` in the background.
    /// - Parameters:
    ///   - key: what the attempts are filed under (the trade number).
    ///   - acknowledged: decides from the merchant's answer whether to stop retrying.
    public nonisolated func deliver(
        key: String, url: String, body: Data, contentType: String, headers: HTTPHeaders = [:], schedule: [Duration],
        acknowledged: @escaping @Sendable (HTTPResponse) -> Bool
    ) {
        var headers = headers
        headers.set("Content-Type", contentType)
        let allHeaders = headers
        enter()  // counted before the task starts: a wait for ``settled()`` just after this sees it
        Task { await self.run(key: key, url: url, body: body, headers: allHeaders, schedule: schedule, acknowledged: acknowledged) }
    }

    private func run(
        key: String, url: String, body: Data, headers: HTTPHeaders, schedule: [Duration],
        acknowledged: @escaping @Sendable (HTTPResponse) -> Bool
    ) async {
        defer { leave() }
        last[key] = (body, headers, acknowledged)
        guard let target = URL(string: url), target.scheme == "http" || target.scheme == "https" else {
            attempts.append(Attempt(key: key, url: url, status: nil, acknowledged: false))
            return
        }
        for delay in [Duration.zero] + schedule {
            if delay > .zero {
                let retry = waitForRetry(at: ContinuousClock.now.advanced(by: delay * timeScale))
                try? await Task.sleep(for: delay * timeScale)
                retrying(retry)
            }
            let request = HTTPRequest(method: "POST", url: target, headers: headers, body: body, timeout: .seconds(5))
            let response = try? await transport.send(request)
            let done = response.map(acknowledged) ?? false
            attempts.append(Attempt(key: key, url: url, status: response?.status, acknowledged: done))
            if done { return }
        }
    }

    /// Sends `copies` more of the last notification filed under `key`, all at once, spread
    /// round-robin over `urls` — the duplicate storm a provider's retries produce behind a load
    /// balancer. - Returns: how many were sent and acknowledged; `nil` for an unknown key.
    public func replay(key: String, copies: Int, to urls: [URL]) async -> (sent: Int, acknowledged: Int)? {
        guard let notification = last[key], !urls.isEmpty else { return nil }
        let transport = self.transport
        let acknowledged = await withTaskGroup(of: Bool.self) { group in
            for copy in 0..<copies {
                let request = HTTPRequest(
                    method: "POST", url: urls[copy % urls.count], headers: notification.headers, body: notification.body,
                    timeout: .seconds(10))
                group.addTask { (try? await transport.send(request)).map(notification.acknowledged) ?? false }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        for url in urls { attempts.append(Attempt(key: key, url: url.absoluteString, status: nil, acknowledged: false)) }
        return (copies, acknowledged)
    }

    /// Waits until no notification is being sent and none is due again within `horizon`: every
    /// delivery started so far has been acknowledged, has run out of attempts, or waits for a
    /// retry due later than that (a retry sooner — the merchant refused, or was not ready — is
    /// waited for, and its answer). A test that has made the sandbox notify waits for this, then
    /// reads what the merchant made of it, instead of sleeping.
    ///
    /// ```swift
    /// await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
    /// await sandbox.delivery.settled(within: .seconds(1))   // answered, and nothing retried within a second
    /// ```
    public nonisolated func settled(within horizon: Duration = .zero) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = sending.withLock { sending -> Bool in
                if sending.quiet(within: horizon) { return true }
                sending.waiters.append((horizon, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private nonisolated func enter() {
        sending.withLock { $0.count += 1 }
    }

    private nonisolated func leave() {
        let woken = sending.withLock { sending in
            sending.count -= 1
            return sending.woken()
        }
        for waiter in woken { waiter.resume() }
    }

    /// An attempt is over and the next is due `at`. - Returns: the retry's number.
    private nonisolated func waitForRetry(at due: ContinuousClock.Instant) -> Int {
        let (id, woken) = sending.withLock { sending in
            sending.count -= 1
            sending.nextID += 1
            sending.retrying[sending.nextID] = due
            return (sending.nextID, sending.woken())
        }
        for waiter in woken { waiter.resume() }
        return id
    }

    /// Retry `id` is being made.
    private nonisolated func retrying(_ id: Int) {
        sending.withLock { sending in
            sending.retrying[id] = nil
            sending.count += 1
        }
    }

    /// Every attempt so far for `key`.
    public func attempts(for key: String) -> [Attempt] {
        attempts.filter { $0.key == key }
    }
}

import Foundation
import Synchronization

/// Requests with the publishable key that make the server act, counted per payer address: an
/// order created from the catalog, a payment started, an Apple Pay token or sheet change, a
/// merchant session validated. The publishable key ships inside the app, so anyone can take it,
/// and each of these requests writes to the database and most call a provider. Each address has
/// a bucket of ``perMinute`` requests, refilled evenly over a minute, so a burst of a whole
/// minute's worth passes and a steady stream past it gets 429 with `Retry-After`.
///
/// Off unless configured (`http.publishable_requests_per_minute`). Behind a proxy, name it in
/// `http.trusted_proxies`, or every payer shares the proxy's bucket. Each instance counts for
/// itself.
final class PublishableKeyThrottle: Sendable {
    let perMinute: Int
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Past this many addresses, those whose bucket has filled again are forgotten, or, when
    /// that leaves over half, all of them (a forgotten address starts with a full bucket, as it
    /// would have by then). Either way the next sweep is at least half as many new addresses
    /// away, so sweeping costs each request a constant share, however many addresses send.
    static let remembered = 65_536

    private struct Bucket {
        var tokens: Double
        var at: Date
    }

    init(perMinute: Int) {
        self.perMinute = max(1, perMinute)
    }

    /// Addresses with a bucket now.
    var addresses: Int { buckets.withLock { $0.count } }

    /// Takes one request from `address`'s bucket. - Returns: `nil` when it may go on; otherwise
    /// the whole seconds until the bucket holds one again.
    func admit(_ address: String, now: Date) -> Int? {
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            if buckets[address] == nil, buckets.count >= Self.remembered {
                buckets = buckets.filter { _, kept in kept.tokens + now.timeIntervalSince(kept.at) * perSecond < capacity }
                if buckets.count > Self.remembered / 2 { buckets.removeAll(keepingCapacity: true) }
            }
            var bucket = buckets[address] ?? Bucket(tokens: capacity, at: now)
            bucket.tokens = min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * perSecond)
            bucket.at = now
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            buckets[address] = bucket
            return admitted ? nil : max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
        }
    }
}

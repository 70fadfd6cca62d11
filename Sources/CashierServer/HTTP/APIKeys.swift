import CashierCrypto
import CashierStore
import Foundation
import Synchronization

/// Secret keys beyond the configured one, made and revoked with `cashier keys` so a key can be
/// rotated without downtime: make a new one, move the backend to it, revoke the old one. The
/// store keeps each key's SHA-256, read on every request that brings an unknown `sk_…` key —
/// so a revoked key is refused at once, on every instance. A key's last use is written at most
/// once a minute per instance.
final class APIKeys: Sendable {
    private let lastNoted = Mutex<[String: Date]>([:])

    /// What the store keeps of a key.
    static func hash(_ key: String) -> String { Hex.encode(DigestAlgorithm.sha256.hash(key)) }

    /// A new secret key and its record (the key is shown once; only its hash is kept).
    /// - Parameter merchant: the sub-merchant the key acts for; `nil` for every merchant.
    static func make(label: String, merchant: String? = nil, now: Date) -> (key: String, record: APIKeyRecord) {
        let key = "sk_" + SecureRandom.alphanumeric(count: 40)
        let record = APIKeyRecord(
            id: "key_" + SecureRandom.alphanumeric(count: 16), hash: hash(key), prefix: String(key.prefix(9)) + "…", label: label,
            createdAt: now, merchant: merchant)
        return (key, record)
    }

    /// The unrevoked secret key from the store that `key` is (its use noted), if any.
    func active(_ key: String, store: any AccessStore, now: Date) async -> APIKeyRecord? {
        guard key.hasPrefix("sk_"), key.utf8.count >= 24, key.utf8.count <= 128,
            let found = try? await store.activeAPIKey(hash: Self.hash(key))
        else { return nil }
        let due = lastNoted.withLock { noted -> Bool in
            guard (noted[found.id].map { now.timeIntervalSince($0) >= 60 }) ?? true else { return false }
            noted[found.id] = now
            return true
        }
        if due { try? await store.touchAPIKey(id: found.id, at: now) }
        return found
    }
}

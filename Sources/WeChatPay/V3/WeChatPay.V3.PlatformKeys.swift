public import CashierCrypto
public import Foundation
import Synchronization

extension WeChatPay.V3 {
    /// The keys WeChat Pay signs with, chosen by the `Wechatpay-Serial` header.
    ///
    /// Two modes, usable together while a merchant migrates: platform certificates (serial =
    /// the certificate's serial in hex, downloaded from `/v3/certificates`) and WeChat Pay
    /// public keys (serial = `PUB_KEY_ID_…`, downloaded once from the merchant platform).
    /// Safe to share between threads; refreshing replaces keys atomically.
    public final class PlatformKeys: Sendable {
        private struct Entry: Sendable {
            let key: RSAPublicKey
            let notValidAfter: Date?
        }

        private let entries = Mutex<[String: Entry]>([:])
        private let refreshed = Mutex<Date?>(nil)
        private let lastDownload = Mutex<Date?>(nil)

        /// The least time between two downloads an unknown serial may cause: a flood of forged
        /// serials costs one download a minute, not one each.
        public static let downloadGap: TimeInterval = 60

        public init() {}

        /// Adds a platform certificate under its serial number.
        public func add(certificate: X509Certificate) throws {
            let key = try RSAPublicKey(certificate: certificate)
            entries.withLock { $0[certificate.serialNumberHex.uppercased()] = Entry(key: key, notValidAfter: certificate.notValidAfter) }
        }

        /// Adds a WeChat Pay public key under its id (`PUB_KEY_ID_…`).
        public func add(publicKey: RSAPublicKey, id: String) {
            entries.withLock { $0[id.uppercased()] = Entry(key: publicKey, notValidAfter: nil) }
        }

        /// The key for `serial`, if it is known and (for a certificate) not expired at `date`.
        public func key(serial: String, at date: Date = Date()) -> RSAPublicKey? {
            entries.withLock { entries in
                guard let entry = entries[serial.uppercased()] else { return nil }
                if let end = entry.notValidAfter, date > end { return nil }
                return entry.key
            }
        }

        /// The key sensitive fields (a transfer's `user_name`, a receiver's `name`) are encrypted
        /// for, with the serial that goes in `Wechatpay-Serial`: the WeChat Pay public key when one
        /// is held (public-key mode), else the platform certificate valid at `date` that ends last.
        public func encryptionKey(at date: Date = Date()) -> (serial: String, key: RSAPublicKey)? {
            entries.withLock { entries in
                if let (serial, entry) = entries.filter({ $0.value.notValidAfter == nil }).min(by: { $0.key < $1.key }) {
                    return (serial, entry.key)
                }
                let valid = entries.compactMap { serial, entry in entry.notValidAfter.flatMap { $0 >= date ? (serial, entry.key, $0) : nil }
                }
                return valid.max { ($0.2, $0.0) < ($1.2, $1.0) }.map { ($0.0, $0.1) }
            }
        }

        /// Records that the platform certificates were downloaded at `date`.
        public func markRefreshed(at date: Date = Date()) {
            refreshed.withLock { $0 = date }
        }

        /// When the platform certificates were last downloaded (`nil`: never, or public-key mode).
        public var lastRefreshed: Date? { refreshed.withLock { $0 } }

        /// Claims the next download for an unknown serial: `true` at most once per `gap`, so
        /// callers that find the same unknown serial at once download once.
        public func claimDownload(at date: Date = Date(), gap: TimeInterval = downloadGap) -> Bool {
            lastDownload.withLock { last in
                if let last, date.timeIntervalSince(last) < gap, date >= last { return false }
                last = date
                return true
            }
        }

        /// `true` when certificates were downloaded before and are older than `interval` at `date`.
        /// Keys added by hand (public-key mode) never need a refresh.
        public func needsRefresh(olderThan interval: TimeInterval, at date: Date = Date()) -> Bool {
            refreshed.withLock { $0.map { date.timeIntervalSince($0) > interval } ?? false }
        }

        /// Every serial or key id known.
        public var serials: [String] { entries.withLock { $0.keys.sorted() } }

        /// Takes every key `other` holds that this one does not, and when `other` was last
        /// refreshed if this one never was: a reloaded configuration keeps the platform
        /// certificates downloaded so far instead of starting with none.
        public func adopt(_ other: PlatformKeys) {
            guard other !== self else { return }
            let theirs = other.entries.withLock { $0 }
            entries.withLock { $0.merge(theirs) { mine, _ in mine } }
            if let when = other.lastRefreshed { refreshed.withLock { $0 = $0 ?? when } }
        }

        /// When each platform certificate held ends (`serial` uppercase hex), by serial: what
        /// `/metrics` reports as days left. Public keys (public-key mode) never end and are not listed.
        public var certificateExpiries: [(serial: String, notValidAfter: Date)] {
            entries.withLock { entries in
                entries.compactMap { serial, entry in entry.notValidAfter.map { (serial, $0) } }.sorted { $0.serial < $1.serial }
            }
        }
    }
}

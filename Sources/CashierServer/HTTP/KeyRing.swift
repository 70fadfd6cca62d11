import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// The keys that reach the API: the configured secret and publishable keys, and the secret keys
/// made with `cashier keys` (in the store, as hashes). One lookup per request.
struct KeyRing: Sendable {
    let configuration: MerchantConfiguration
    let store: any AccessStore
    let clock: any WallClock
    let apiKeys: APIKeys

    /// The key in `Authorization: Bearer …`, if the request sends one.
    static func bearerKey(_ request: HTTPServerRequest) -> String? {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7))
    }

    /// Who `request`'s bearer key is, if it is one of this server's.
    func identify(_ request: HTTPServerRequest) async -> Identity? {
        guard let key = Self.bearerKey(request) else { return nil }
        return await identify(key: key)
    }

    /// The configured keys first (no database read); then the keys made with `cashier keys`.
    func identify(key: String) async -> Identity? {
        if ConstantTime.equals(key, configuration.secretKey) { return .platform }
        if ConstantTime.equals(key, configuration.publishableKey) { return .app }
        guard let record = await apiKeys.active(key, store: store, now: clock.now()) else { return nil }
        // A key for a merchant this server does not serve (made for one since removed from the
        // configuration, or never in it) acts for no one: it would tag orders with a merchant
        // that has no credentials, no notify path and no owner.
        if let merchant = record.merchant, !configuration.subMerchants.contains(where: { $0.id == merchant }) { return nil }
        return Identity(caller: .secret, merchant: record.merchant, keyID: record.id)
    }

    /// Whether `key` is one of the platform's secret keys: not publishable, and not a key made
    /// with `--merchant` (the dashboard acts with the server's own key on every merchant's orders).
    func isPlatformSecretKey(_ key: String) async -> Bool {
        guard let identity = await identify(key: key) else { return false }
        return identity.caller == .secret && identity.merchant == nil
    }
}

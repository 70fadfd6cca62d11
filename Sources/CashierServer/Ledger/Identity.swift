/// Who is calling: which kind of key, and — for a key made with `cashier keys create
/// --merchant` — the sub-merchant it acts for. Found once per request (``Authenticate``); the
/// ledger's rules read it (the app never sets a price; a merchant's key touches its own orders).
struct Identity: Sendable, Equatable {
    enum Caller: Sendable, Equatable { case secret, publishable }

    let caller: Caller
    /// The sub-merchant the key acts for; `nil` for the configured keys and the platform's own.
    var merchant: String? = nil
    /// The id of the key made with `cashier keys create` (`key_…`); `nil` for the configured keys.
    var keyID: String? = nil

    /// The configured secret key: the platform's backend.
    static let platform = Identity(caller: .secret)
    /// The configured publishable key: the app.
    static let app = Identity(caller: .publishable)
}

/// The tables behind dashboard sessions, sign-in failures and API keys: the same SQL on SQLite and
/// PostgreSQL (migration `015_access`).
enum SQLOrderStoreAccess {
    static let migration = """
        CREATE TABLE dashboard_sessions (id_hash TEXT PRIMARY KEY, csrf TEXT NOT NULL, expires_at BIGINT NOT NULL);
        CREATE TABLE sign_in_failures (source TEXT NOT NULL, at BIGINT NOT NULL);
        CREATE INDEX sign_in_failures_by_source ON sign_in_failures (source, at);
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, label TEXT NOT NULL,
            created_at BIGINT NOT NULL, revoked_at BIGINT, last_used_at BIGINT
        )
        """

    /// Migration `016_merchants`: the merchant an order belongs to (`NULL`: the server's direct
    /// merchant), and the merchant a secret key acts for (`NULL`: every merchant).
    static let merchants = """
        ALTER TABLE orders ADD COLUMN merchant TEXT;
        ALTER TABLE api_keys ADD COLUMN merchant TEXT
        """
}

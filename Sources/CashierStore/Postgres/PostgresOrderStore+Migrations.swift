extension PostgresOrderStore {
    /// The schema: the same migration names as SQLite's, in PostgreSQL's dialect.
    static let migrations: [(name: String, sql: String)] = [
        (
            "001_orders",
            """
            CREATE TABLE orders (
                rowid BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, out_trade_no TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
                currency TEXT NOT NULL, total_minor BIGINT NOT NULL, refunded_minor BIGINT NOT NULL DEFAULT 0,
                description TEXT NOT NULL, metadata TEXT NOT NULL, items TEXT NOT NULL, client_secret TEXT NOT NULL,
                refund_required INTEGER NOT NULL DEFAULT 0, version BIGINT NOT NULL DEFAULT 1,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, expires_at BIGINT
            );
            CREATE INDEX orders_status ON orders(status, created_at);
            CREATE INDEX orders_expiry ON orders(status, expires_at);
            """
        ),
        (
            "002_events",
            """
            CREATE TABLE events (
                sequence BIGSERIAL PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id),
                kind TEXT NOT NULL, from_status TEXT, to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX events_order ON events(order_id, sequence);
            CREATE FUNCTION cashier_events_append_only() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN RAISE EXCEPTION 'the event log is append-only'; END $$;
            CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
                FOR EACH ROW EXECUTE FUNCTION cashier_events_append_only();
            """
        ),
        (
            "003_idempotency_keys",
            """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY, request_sha256 TEXT NOT NULL, status INTEGER NOT NULL, body BYTEA NOT NULL,
                created_at BIGINT NOT NULL
            );
            """
        ),
        (
            "004_outbox",
            """
            CREATE TABLE outbox (
                rowid BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), type TEXT NOT NULL,
                payload TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL, delivered_at BIGINT,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
            """
        ),
        ("005_events_by_transition", "CREATE INDEX events_transition ON events(to_status, created_at);"),
        ("006_job_leases", "CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at BIGINT NOT NULL);"),
        (
            "007_payments",
            """
            CREATE TABLE payments (
                rowid BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), method TEXT NOT NULL,
                provider TEXT NOT NULL, wallet TEXT NOT NULL, out_trade_no TEXT NOT NULL, app_id TEXT, merchant_id TEXT, payer TEXT,
                transaction_id TEXT, wallet_token TEXT UNIQUE, currency TEXT NOT NULL, amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
                refunded_minor BIGINT NOT NULL DEFAULT 0, reserved_minor BIGINT NOT NULL DEFAULT 0, status TEXT NOT NULL,
                refund_required INTEGER NOT NULL DEFAULT 0, failure_reason TEXT,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, succeeded_at BIGINT,
                UNIQUE (wallet, out_trade_no),
                CHECK (refunded_minor >= 0 AND refunded_minor <= reserved_minor AND reserved_minor <= amount_minor)
            );
            CREATE INDEX payments_order ON payments(order_id, created_at);
            CREATE INDEX payments_status ON payments(status, created_at);
            CREATE INDEX payments_succeeded ON payments(succeeded_at);
            """
        ),
        (
            "008_refunds",
            """
            CREATE TABLE refunds (
                rowid BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id),
                payment_id TEXT NOT NULL REFERENCES payments(id), out_refund_no TEXT NOT NULL UNIQUE, currency TEXT NOT NULL,
                amount_minor BIGINT NOT NULL CHECK (amount_minor > 0), status TEXT NOT NULL, provider_refund_id TEXT, reason TEXT,
                failure_reason TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, finished_at BIGINT,
                confirmed_at BIGINT
            );
            CREATE INDEX refunds_order ON refunds(order_id, created_at);
            CREATE INDEX refunds_status ON refunds(status, created_at);
            CREATE INDEX refunds_finished ON refunds(finished_at);
            """
        ),
        ("009_orders_settled_payment", "ALTER TABLE orders ADD COLUMN settled_payment_id TEXT;"),
        (
            "010_idempotency_reservations",
            "ALTER TABLE idempotency_keys ADD COLUMN holder TEXT; ALTER TABLE idempotency_keys ADD COLUMN locked_until BIGINT;"
        ),
        (
            "011_backfill_payments",
            SQLStatements.backfillPayments(method: "(e.detail::json ->> 'method')", field: { "(e.detail::json ->> '\($0)')" })
        ),
        ("012_dashboard", SQLOverview.migration),
        (
            "013_card_payments",
            """
            ALTER TABLE payments ADD COLUMN capture TEXT;
            ALTER TABLE payments ADD COLUMN contacts TEXT;
            ALTER TABLE orders ADD COLUMN sheet TEXT
            """
        ),
        ("014_checkout", "ALTER TABLE orders ADD COLUMN return_url TEXT"),
        ("015_access", SQLOrderStoreAccess.migration),
        ("016_merchants", SQLOrderStoreAccess.merchants),
        ("017_transitions_only", SQLStatements.transitionsOnly),
        ("018_outbox_waiting", SQLStatements.outboxWaiting),
    ]
}

extension Migration {
    /// The schema, for both databases: every migration, in the order they apply. Names never
    /// change (a database records what it has by name), and neither does any text once released:
    /// `GoldenTests` holds each dialect's rendering byte for byte.
    ///
    /// Four give both texts: `002_events`, whose append-only trigger is written differently, and
    /// `004_outbox`, `007_payments` and `008_refunds`, released with PostgreSQL's columns laid
    /// out over other lines than SQLite's.
    static let all: [Migration] = [
        Migration(name: "001_orders") { dialect in
            """
            CREATE TABLE orders (
                \(dialect.rowidColumn)id TEXT PRIMARY KEY, out_trade_no TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
                currency TEXT NOT NULL, total_minor \(dialect.bigint) NOT NULL, refunded_minor \(dialect.bigint) NOT NULL DEFAULT 0,
                description TEXT NOT NULL, metadata TEXT NOT NULL, items TEXT NOT NULL, client_secret TEXT NOT NULL,
                refund_required INTEGER NOT NULL DEFAULT 0, version \(dialect.bigint) NOT NULL DEFAULT 1,
                created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL, expires_at \(dialect.bigint)
            );
            CREATE INDEX orders_status ON orders(status, created_at);
            CREATE INDEX orders_expiry ON orders(status, expires_at);
            """
        },
        Migration(name: "002_events") { dialect in
            """
            CREATE TABLE events (
                sequence \(dialect.serialKey), order_id TEXT NOT NULL REFERENCES orders(id),
                kind TEXT NOT NULL, from_status TEXT, to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT,
                created_at \(dialect.bigint) NOT NULL
            );
            CREATE INDEX events_order ON events(order_id, sequence);
            \(appendOnlyEvents(dialect))
            """
        },
        Migration(name: "003_idempotency_keys") { dialect in
            """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY, request_sha256 TEXT NOT NULL, status INTEGER NOT NULL, body \(dialect.blob) NOT NULL,
                created_at \(dialect.bigint) NOT NULL
            );
            """
        },
        .dialects(
            "004_outbox",
            sqlite: """
                CREATE TABLE outbox (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), type TEXT NOT NULL, payload TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL
                );
                CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
                """,
            postgres: """
                CREATE TABLE outbox (
                    rowid BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), type TEXT NOT NULL,
                    payload TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL, delivered_at BIGINT,
                    created_at BIGINT NOT NULL
                );
                CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
                """),
        .same("005_events_by_transition", "CREATE INDEX events_transition ON events(to_status, created_at);"),
        Migration(name: "006_job_leases") { dialect in
            "CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at \(dialect.bigint) NOT NULL);"
        },
        .dialects(
            "007_payments",
            sqlite: """
                CREATE TABLE payments (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), method TEXT NOT NULL, provider TEXT NOT NULL,
                    wallet TEXT NOT NULL, out_trade_no TEXT NOT NULL, app_id TEXT, merchant_id TEXT, payer TEXT, transaction_id TEXT,
                    wallet_token TEXT UNIQUE, currency TEXT NOT NULL, amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
                    refunded_minor INTEGER NOT NULL DEFAULT 0, reserved_minor INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL,
                    refund_required INTEGER NOT NULL DEFAULT 0, failure_reason TEXT,
                    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, succeeded_at INTEGER,
                    UNIQUE (wallet, out_trade_no),
                    CHECK (refunded_minor >= 0 AND refunded_minor <= reserved_minor AND reserved_minor <= amount_minor)
                );
                CREATE INDEX payments_order ON payments(order_id, created_at);
                CREATE INDEX payments_status ON payments(status, created_at);
                CREATE INDEX payments_succeeded ON payments(succeeded_at);
                """,
            postgres: """
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
                """),
        .dialects(
            "008_refunds",
            sqlite: """
                CREATE TABLE refunds (
                    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), payment_id TEXT NOT NULL REFERENCES payments(id),
                    out_refund_no TEXT NOT NULL UNIQUE, currency TEXT NOT NULL, amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
                    status TEXT NOT NULL, provider_refund_id TEXT, reason TEXT, failure_reason TEXT,
                    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
                    confirmed_at INTEGER
                );
                CREATE INDEX refunds_order ON refunds(order_id, created_at);
                CREATE INDEX refunds_status ON refunds(status, created_at);
                CREATE INDEX refunds_finished ON refunds(finished_at);
                """,
            postgres: """
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
                """),
        .same("009_orders_settled_payment", "ALTER TABLE orders ADD COLUMN settled_payment_id TEXT;"),
        Migration(name: "010_idempotency_reservations") { dialect in
            "ALTER TABLE idempotency_keys ADD COLUMN holder TEXT; ALTER TABLE idempotency_keys ADD COLUMN locked_until \(dialect.bigint);"
        },
        Migration(name: "011_backfill_payments") { dialect in
            SQLStatements.backfillPayments(method: dialect.jsonField("e.detail", "method"), field: { dialect.jsonField("e.detail", $0) })
        },
        .same("012_dashboard", SQLOverview.migration),
        .same(
            "013_card_payments",
            """
            ALTER TABLE payments ADD COLUMN capture TEXT;
            ALTER TABLE payments ADD COLUMN contacts TEXT;
            ALTER TABLE orders ADD COLUMN sheet TEXT
            """),
        .same("014_checkout", "ALTER TABLE orders ADD COLUMN return_url TEXT"),
        .same("015_access", SQLOrderStoreAccess.migration),
        .same("016_merchants", SQLOrderStoreAccess.merchants),
        .same("017_transitions_only", SQLStatements.transitionsOnly),
        .same("018_outbox_waiting", SQLStatements.outboxWaiting),
        // The key a dashboard session signed in with: revoking the key ends its sessions.
        .same("019_dashboard_session_key", "ALTER TABLE dashboard_sessions ADD COLUMN key_id TEXT;"),
        // Payers' complaints (WeChat Pay's 消费者投诉 2.0), by deadline; the provider's word kept whole in `snapshot`.
        Migration(name: "020_complaints") { dialect in SQLOrderStoreComplaints.migration(dialect) },
        // What `cashier-bench scale` found scanning or sorting on a store of millions of orders.
        Migration(name: "021_scale_indexes") { dialect in SQLStatements.scaleIndexes(dialect) },
        // Transfers out (WeChat Pay's 商家转账), one per out_bill_no.
        // Their webhooks queue in the outbox under the transfer's id, so its order_id no longer references orders.
        Migration(name: "022_transfers") { dialect in
            SQLOrderStoreTransfers.migration(dialect) + ";\n" + SQLOrderStoreTransfers.outboxForTransfers(dialect)
        },
        // Profit sharing: orders placed for it, what a payment's splits hold, receivers, splits and returns.
        Migration(name: "023_profit_sharing") { dialect in SQLOrderStoreSplits.migration(dialect) },
        // Recurring payments: agreements, subscriptions, one invoice per subscription and period.
        Migration(name: "024_recurring") { dialect in SQLOrderStoreRecurring.migration(dialect) },
    ]

    /// Migration `002_events`'s guard on the event log: updates and deletes refused, by two
    /// triggers on SQLite, by one trigger and the function it calls on PostgreSQL.
    private static func appendOnlyEvents(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            """
            CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
            CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
            """
        case .postgres:
            """
            CREATE FUNCTION cashier_events_append_only() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN RAISE EXCEPTION 'the event log is append-only'; END $$;
            CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
                FOR EACH ROW EXECUTE FUNCTION cashier_events_append_only();
            """
        }
    }
}

index agreements_created ON agreements
CREATE INDEX agreements_created ON agreements(created_at)
index agreements_pending ON agreements
CREATE INDEX agreements_pending ON agreements(status, updated_at)
index complaints_merchant ON complaints
CREATE INDEX complaints_merchant ON complaints(merchant, state)
index complaints_open ON complaints
CREATE INDEX complaints_open ON complaints(state, respond_by, settle_by)
index complaints_order ON complaints
CREATE INDEX complaints_order ON complaints(order_id)
index events_order ON events
CREATE INDEX events_order ON events(order_id, sequence)
index events_transition ON events
CREATE INDEX events_transition ON events(to_status, created_at) WHERE to_status IS NOT NULL
index invoices_due ON invoices
CREATE INDEX invoices_due ON invoices(status, next_attempt_at)
index invoices_order ON invoices
CREATE INDEX invoices_order ON invoices(order_id)
index orders_created ON orders
CREATE INDEX orders_created ON orders(created_at)
index orders_expiry ON orders
CREATE INDEX orders_expiry ON orders(status, expires_at)
index orders_status ON orders
CREATE INDEX orders_status ON orders(status, created_at)
index orders_status_recent ON orders
CREATE INDEX orders_status_recent ON orders(status)
index outbox_created ON outbox
CREATE INDEX outbox_created ON outbox(created_at)
index outbox_due ON outbox
CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at)
index outbox_waiting ON outbox
CREATE INDEX outbox_waiting ON outbox(order_id, next_attempt_at) WHERE delivered_at IS NULL
index payments_created ON payments
CREATE INDEX payments_created ON payments(created_at)
index payments_number ON payments
CREATE INDEX payments_number ON payments(out_trade_no)
index payments_order ON payments
CREATE INDEX payments_order ON payments(order_id, created_at)
index payments_refund_required ON payments
CREATE INDEX payments_refund_required ON payments(created_at) WHERE refund_required = 1
index payments_status ON payments
CREATE INDEX payments_status ON payments(status, created_at)
index payments_succeeded ON payments
CREATE INDEX payments_succeeded ON payments(succeeded_at)
index payments_transaction ON payments
CREATE INDEX payments_transaction ON payments(transaction_id)
index refunds_created ON refunds
CREATE INDEX refunds_created ON refunds(created_at)
index refunds_finished ON refunds
CREATE INDEX refunds_finished ON refunds(finished_at)
index refunds_order ON refunds
CREATE INDEX refunds_order ON refunds(order_id, created_at)
index refunds_payment ON refunds
CREATE INDEX refunds_payment ON refunds(payment_id)
index refunds_provider_refund ON refunds
CREATE INDEX refunds_provider_refund ON refunds(provider_refund_id)
index refunds_status ON refunds
CREATE INDEX refunds_status ON refunds(status, created_at)
index sign_in_failures_by_source ON sign_in_failures
CREATE INDEX sign_in_failures_by_source ON sign_in_failures (source, at)
index split_returns_order ON split_returns
CREATE INDEX split_returns_order ON split_returns(order_id, created_at)
index split_returns_pending ON split_returns
CREATE INDEX split_returns_pending ON split_returns(status, updated_at)
index splits_created ON splits
CREATE INDEX splits_created ON splits(created_at)
index splits_finished ON splits
CREATE INDEX splits_finished ON splits(finished_at)
index splits_merchant ON splits
CREATE INDEX splits_merchant ON splits(merchant, created_at)
index splits_order ON splits
CREATE INDEX splits_order ON splits(order_id, created_at)
index splits_unfinished ON splits
CREATE INDEX splits_unfinished ON splits(status, updated_at)
index sqlite_autoindex_agreements_1 ON agreements

index sqlite_autoindex_agreements_2 ON agreements

index sqlite_autoindex_api_keys_1 ON api_keys

index sqlite_autoindex_api_keys_2 ON api_keys

index sqlite_autoindex_complaints_1 ON complaints

index sqlite_autoindex_complaints_2 ON complaints

index sqlite_autoindex_dashboard_sessions_1 ON dashboard_sessions

index sqlite_autoindex_idempotency_keys_1 ON idempotency_keys

index sqlite_autoindex_invoices_1 ON invoices

index sqlite_autoindex_invoices_2 ON invoices

index sqlite_autoindex_job_leases_1 ON job_leases

index sqlite_autoindex_orders_1 ON orders

index sqlite_autoindex_orders_2 ON orders

index sqlite_autoindex_outbox_1 ON outbox

index sqlite_autoindex_payments_1 ON payments

index sqlite_autoindex_payments_2 ON payments

index sqlite_autoindex_payments_3 ON payments

index sqlite_autoindex_receivers_1 ON receivers

index sqlite_autoindex_receivers_2 ON receivers

index sqlite_autoindex_refunds_1 ON refunds

index sqlite_autoindex_refunds_2 ON refunds

index sqlite_autoindex_schema_migrations_1 ON schema_migrations

index sqlite_autoindex_split_returns_1 ON split_returns

index sqlite_autoindex_split_returns_2 ON split_returns

index sqlite_autoindex_splits_1 ON splits

index sqlite_autoindex_splits_2 ON splits

index sqlite_autoindex_subscriptions_1 ON subscriptions

index sqlite_autoindex_transfers_1 ON transfers

index sqlite_autoindex_transfers_2 ON transfers

index subscriptions_agreement ON subscriptions
CREATE INDEX subscriptions_agreement ON subscriptions(agreement_id, created_at)
index subscriptions_created ON subscriptions
CREATE INDEX subscriptions_created ON subscriptions(created_at)
index subscriptions_due ON subscriptions
CREATE INDEX subscriptions_due ON subscriptions(status, next_charge_at)
index transfers_created ON transfers
CREATE INDEX transfers_created ON transfers(created_at)
index transfers_finished ON transfers
CREATE INDEX transfers_finished ON transfers(finished_at)
index transfers_merchant ON transfers
CREATE INDEX transfers_merchant ON transfers(merchant, created_at)
index transfers_unfinished ON transfers
CREATE INDEX transfers_unfinished ON transfers(status, updated_at)
table agreements ON agreements
CREATE TABLE agreements (
    id TEXT PRIMARY KEY, merchant TEXT, provider TEXT NOT NULL, method TEXT NOT NULL,
    external_no TEXT NOT NULL, provider_agreement_id TEXT, payer TEXT, plan_id TEXT, description TEXT NOT NULL,
    period_unit TEXT NOT NULL, period_count INTEGER NOT NULL CHECK (period_count > 0), currency TEXT NOT NULL,
    single_limit_minor INTEGER NOT NULL CHECK (single_limit_minor > 0), first_charge_at INTEGER,
    status TEXT NOT NULL, provider_state TEXT, end_reason TEXT, version INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, activated_at INTEGER,
    ended_at INTEGER,
    UNIQUE (provider, external_no)
)
table api_keys ON api_keys
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, label TEXT NOT NULL,
    created_at BIGINT NOT NULL, revoked_at BIGINT, last_used_at BIGINT
, merchant TEXT)
table complaints ON complaints
CREATE TABLE complaints (
    id TEXT PRIMARY KEY, provider TEXT NOT NULL, provider_complaint_id TEXT NOT NULL,
    provider_merchant_id TEXT NOT NULL, merchant TEXT, order_id TEXT REFERENCES orders(id),
    payment_id TEXT REFERENCES payments(id), out_trade_no TEXT, state TEXT NOT NULL,
    complained_at INTEGER NOT NULL, respond_by INTEGER NOT NULL, settle_by INTEGER NOT NULL,
    snapshot TEXT NOT NULL, refund_decision TEXT, refund_id TEXT, respond_overdue_at INTEGER,
    settle_overdue_at INTEGER, version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (provider, provider_complaint_id)
)
table dashboard_sessions ON dashboard_sessions
CREATE TABLE dashboard_sessions (id_hash TEXT PRIMARY KEY, csrf TEXT NOT NULL, expires_at BIGINT NOT NULL, key_id TEXT)
table events ON events
CREATE TABLE events (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL REFERENCES orders(id),
    kind TEXT NOT NULL, from_status TEXT, to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT,
    created_at INTEGER NOT NULL
)
table idempotency_keys ON idempotency_keys
CREATE TABLE idempotency_keys (
    key TEXT PRIMARY KEY, request_sha256 TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
    created_at INTEGER NOT NULL
, holder TEXT, locked_until INTEGER)
table invoices ON invoices
CREATE TABLE invoices (
    id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL REFERENCES subscriptions(id),
    period INTEGER NOT NULL CHECK (period > 0), order_id TEXT NOT NULL REFERENCES orders(id), currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, failures INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER, last_error TEXT, period_start INTEGER NOT NULL,
    version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (subscription_id, period)
)
table job_leases ON job_leases
CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)
table orders ON orders
CREATE TABLE orders (
    id TEXT PRIMARY KEY, out_trade_no TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
    currency TEXT NOT NULL, total_minor INTEGER NOT NULL, refunded_minor INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL, metadata TEXT NOT NULL, items TEXT NOT NULL, client_secret TEXT NOT NULL,
    refund_required INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER
, settled_payment_id TEXT, sheet TEXT, return_url TEXT, merchant TEXT, profit_sharing INTEGER NOT NULL DEFAULT 0)
table outbox ON outbox
CREATE TABLE "outbox" (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL,
    last_error TEXT
)
table payments ON payments
CREATE TABLE payments (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), method TEXT NOT NULL, provider TEXT NOT NULL,
    wallet TEXT NOT NULL, out_trade_no TEXT NOT NULL, app_id TEXT, merchant_id TEXT, payer TEXT, transaction_id TEXT,
    wallet_token TEXT UNIQUE, currency TEXT NOT NULL, amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    refunded_minor INTEGER NOT NULL DEFAULT 0, reserved_minor INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL,
    refund_required INTEGER NOT NULL DEFAULT 0, failure_reason TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, succeeded_at INTEGER, capture TEXT, contacts TEXT, shared_minor INTEGER NOT NULL DEFAULT 0,
    UNIQUE (wallet, out_trade_no),
    CHECK (refunded_minor >= 0 AND refunded_minor <= reserved_minor AND reserved_minor <= amount_minor)
)
table receivers ON receivers
CREATE TABLE receivers (
    id TEXT PRIMARY KEY, merchant TEXT, merchant_key TEXT NOT NULL, provider TEXT NOT NULL,
    type TEXT NOT NULL, account TEXT NOT NULL, relation_type TEXT NOT NULL, custom_relation TEXT, status TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    UNIQUE (merchant_key, provider, type, account)
)
table refunds ON refunds
CREATE TABLE refunds (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), payment_id TEXT NOT NULL REFERENCES payments(id),
    out_refund_no TEXT NOT NULL UNIQUE, currency TEXT NOT NULL, amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
    status TEXT NOT NULL, provider_refund_id TEXT, reason TEXT, failure_reason TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
    confirmed_at INTEGER
, requested_by TEXT)
table schema_migrations ON schema_migrations
CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)
table sign_in_failures ON sign_in_failures
CREATE TABLE sign_in_failures (source TEXT NOT NULL, at BIGINT NOT NULL)
table split_returns ON split_returns
CREATE TABLE split_returns (
    id TEXT PRIMARY KEY, split_id TEXT NOT NULL REFERENCES splits(id), order_id TEXT NOT NULL,
    out_return_no TEXT NOT NULL UNIQUE, account TEXT NOT NULL, currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), description TEXT NOT NULL, status TEXT NOT NULL,
    provider_return_id TEXT, provider_state TEXT, failure_reason TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
)
table splits ON splits
CREATE TABLE splits (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), payment_id TEXT NOT NULL,
    merchant TEXT, provider TEXT NOT NULL, out_order_no TEXT NOT NULL UNIQUE, transaction_id TEXT NOT NULL,
    provider_order_id TEXT, shares TEXT NOT NULL, currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor >= 0), finish INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL, status TEXT NOT NULL, provider_state TEXT, failure_reason TEXT,
    version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER
)
table sqlite_sequence ON sqlite_sequence
CREATE TABLE sqlite_sequence(name,seq)
table subscriptions ON subscriptions
CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY, agreement_id TEXT NOT NULL REFERENCES agreements(id), merchant TEXT,
    currency TEXT NOT NULL, amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), description TEXT NOT NULL,
    interval_unit TEXT NOT NULL, interval_count INTEGER NOT NULL CHECK (interval_count > 0), anchor_at INTEGER NOT NULL,
    period INTEGER NOT NULL DEFAULT 0, next_charge_at INTEGER, max_attempts INTEGER NOT NULL CHECK (max_attempts > 0),
    status TEXT NOT NULL, cancel_reason TEXT, version INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, canceled_at INTEGER
)
table transfers ON transfers
CREATE TABLE transfers (
    id TEXT PRIMARY KEY, merchant TEXT, provider TEXT NOT NULL, out_bill_no TEXT NOT NULL,
    provider_bill_no TEXT, app_id TEXT NOT NULL, openid TEXT NOT NULL, currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), remark TEXT NOT NULL, scene TEXT NOT NULL, user_name TEXT,
    status TEXT NOT NULL, provider_state TEXT, package_info TEXT, failure_reason TEXT,
    version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (provider, out_bill_no)
)
trigger events_no_delete ON events
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END
trigger events_no_update ON events
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END

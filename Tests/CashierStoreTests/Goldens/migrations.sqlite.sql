-- 001_orders
CREATE TABLE orders (
    id TEXT PRIMARY KEY, out_trade_no TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
    currency TEXT NOT NULL, total_minor INTEGER NOT NULL, refunded_minor INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL, metadata TEXT NOT NULL, items TEXT NOT NULL, client_secret TEXT NOT NULL,
    refund_required INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER
);
CREATE INDEX orders_status ON orders(status, created_at);
CREATE INDEX orders_expiry ON orders(status, expires_at);

-- 002_events
CREATE TABLE events (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL REFERENCES orders(id),
    kind TEXT NOT NULL, from_status TEXT, to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX events_order ON events(order_id, sequence);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;

-- 003_idempotency_keys
CREATE TABLE idempotency_keys (
    key TEXT PRIMARY KEY, request_sha256 TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
    created_at INTEGER NOT NULL
);

-- 004_outbox
CREATE TABLE outbox (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), type TEXT NOT NULL, payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL
);
CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);

-- 005_events_by_transition
CREATE INDEX events_transition ON events(to_status, created_at);

-- 006_job_leases
CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);

-- 007_payments
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

-- 008_refunds
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

-- 009_orders_settled_payment
ALTER TABLE orders ADD COLUMN settled_payment_id TEXT;

-- 010_idempotency_reservations
ALTER TABLE idempotency_keys ADD COLUMN holder TEXT; ALTER TABLE idempotency_keys ADD COLUMN locked_until INTEGER;

-- 011_backfill_payments
INSERT INTO payments (id, order_id, method, provider, wallet, out_trade_no, app_id, currency, amount_minor, refunded_minor,
    reserved_minor, status, refund_required, created_at, updated_at, succeeded_at)
SELECT 'pay_legacy_' || o.id, o.id, json_extract(e.detail, '$.method'),
    CASE WHEN json_extract(e.detail, '$.method') LIKE 'wechat.%' THEN 'wechat.' || COALESCE(json_extract(e.detail, '$.api'), 'v2')
         WHEN json_extract(e.detail, '$.method') LIKE 'alipay.%' THEN 'alipay' ELSE 'applepay' END,
    CASE WHEN json_extract(e.detail, '$.method') LIKE 'wechat.%' THEN 'wechat' WHEN json_extract(e.detail, '$.method') LIKE 'alipay.%' THEN 'alipay' ELSE 'applepay' END,
    o.out_trade_no, json_extract(e.detail, '$.appid'), o.currency, o.total_minor, o.refunded_minor, o.refunded_minor,
    CASE WHEN o.status IN ('paid', 'partially_refunded', 'refunded') THEN 'succeeded' WHEN o.status = 'pending' THEN 'pending'
         WHEN o.status = 'failed' THEN 'failed' ELSE 'closed' END,
    o.refund_required, e.created_at, o.updated_at, CASE WHEN o.status IN ('paid', 'partially_refunded', 'refunded') THEN o.updated_at END
FROM orders o JOIN events e ON e.sequence = (
    SELECT MAX(sequence) FROM events WHERE order_id = o.id AND kind = 'payment_started')
WHERE json_extract(e.detail, '$.method') IS NOT NULL AND o.total_minor > 0;
INSERT INTO refunds (id, order_id, payment_id, out_refund_no, currency, amount_minor, status, created_at, updated_at, finished_at,
    confirmed_at)
SELECT 're_legacy_' || o.id, o.id, p.id, 'legacy_' || o.id, o.currency, o.refunded_minor, 'succeeded', o.updated_at,
    o.updated_at, o.updated_at, o.updated_at
FROM orders o JOIN payments p ON p.id = 'pay_legacy_' || o.id WHERE o.refunded_minor > 0;
UPDATE orders SET settled_payment_id = 'pay_legacy_' || id WHERE status IN ('paid', 'partially_refunded', 'refunded')
    AND EXISTS (SELECT 1 FROM payments p WHERE p.id = 'pay_legacy_' || orders.id);

-- 012_dashboard
CREATE INDEX orders_created ON orders(created_at);
CREATE INDEX payments_created ON payments(created_at);
CREATE INDEX payments_number ON payments(out_trade_no);
CREATE INDEX payments_transaction ON payments(transaction_id);
CREATE INDEX outbox_created ON outbox(created_at);
CREATE INDEX refunds_created ON refunds(created_at);
CREATE INDEX refunds_provider_refund ON refunds(provider_refund_id);
CREATE INDEX payments_refund_required ON payments(created_at) WHERE refund_required = 1;
ALTER TABLE outbox ADD COLUMN last_error TEXT;
ALTER TABLE refunds ADD COLUMN requested_by TEXT;

-- 013_card_payments
ALTER TABLE payments ADD COLUMN capture TEXT;
ALTER TABLE payments ADD COLUMN contacts TEXT;
ALTER TABLE orders ADD COLUMN sheet TEXT

-- 014_checkout
ALTER TABLE orders ADD COLUMN return_url TEXT

-- 015_access
CREATE TABLE dashboard_sessions (id_hash TEXT PRIMARY KEY, csrf TEXT NOT NULL, expires_at BIGINT NOT NULL);
CREATE TABLE sign_in_failures (source TEXT NOT NULL, at BIGINT NOT NULL);
CREATE INDEX sign_in_failures_by_source ON sign_in_failures (source, at);
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, prefix TEXT NOT NULL, label TEXT NOT NULL,
    created_at BIGINT NOT NULL, revoked_at BIGINT, last_used_at BIGINT
)

-- 016_merchants
ALTER TABLE orders ADD COLUMN merchant TEXT;
ALTER TABLE api_keys ADD COLUMN merchant TEXT

-- 017_transitions_only
DROP INDEX events_transition;
CREATE INDEX events_transition ON events(to_status, created_at) WHERE to_status IS NOT NULL

-- 018_outbox_waiting
CREATE INDEX outbox_waiting ON outbox(order_id, next_attempt_at) WHERE delivered_at IS NULL

-- 019_dashboard_session_key
ALTER TABLE dashboard_sessions ADD COLUMN key_id TEXT;

-- 020_complaints
CREATE TABLE complaints (
    id TEXT PRIMARY KEY, provider TEXT NOT NULL, provider_complaint_id TEXT NOT NULL,
    provider_merchant_id TEXT NOT NULL, merchant TEXT, order_id TEXT REFERENCES orders(id),
    payment_id TEXT REFERENCES payments(id), out_trade_no TEXT, state TEXT NOT NULL,
    complained_at INTEGER NOT NULL, respond_by INTEGER NOT NULL, settle_by INTEGER NOT NULL,
    snapshot TEXT NOT NULL, refund_decision TEXT, refund_id TEXT, respond_overdue_at INTEGER,
    settle_overdue_at INTEGER, version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (provider, provider_complaint_id)
);
CREATE INDEX complaints_open ON complaints(state, respond_by, settle_by);
CREATE INDEX complaints_order ON complaints(order_id);
CREATE INDEX complaints_merchant ON complaints(merchant, state)

-- 021_scale_indexes
CREATE INDEX orders_status_recent ON orders(status);
CREATE INDEX refunds_payment ON refunds(payment_id)

-- 022_transfers
CREATE TABLE transfers (
    id TEXT PRIMARY KEY, merchant TEXT, provider TEXT NOT NULL, out_bill_no TEXT NOT NULL,
    provider_bill_no TEXT, app_id TEXT NOT NULL, openid TEXT NOT NULL, currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), remark TEXT NOT NULL, scene TEXT NOT NULL, user_name TEXT,
    status TEXT NOT NULL, provider_state TEXT, package_info TEXT, failure_reason TEXT,
    version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (provider, out_bill_no)
);
CREATE INDEX transfers_unfinished ON transfers(status, updated_at);
CREATE INDEX transfers_merchant ON transfers(merchant, created_at);
CREATE TABLE outbox_022 (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL,
    last_error TEXT
);
INSERT INTO outbox_022 (rowid, id, order_id, type, payload, attempts, next_attempt_at, delivered_at, created_at, last_error)
    SELECT rowid, id, order_id, type, payload, attempts, next_attempt_at, delivered_at, created_at, last_error FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_022 RENAME TO outbox;
CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
CREATE INDEX outbox_created ON outbox(created_at);
CREATE INDEX outbox_waiting ON outbox(order_id, next_attempt_at) WHERE delivered_at IS NULL

-- 023_profit_sharing
ALTER TABLE orders ADD COLUMN profit_sharing INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payments ADD COLUMN shared_minor INTEGER NOT NULL DEFAULT 0;
CREATE TABLE receivers (
    id TEXT PRIMARY KEY, merchant TEXT, merchant_key TEXT NOT NULL, provider TEXT NOT NULL,
    type TEXT NOT NULL, account TEXT NOT NULL, relation_type TEXT NOT NULL, custom_relation TEXT, status TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    UNIQUE (merchant_key, provider, type, account)
);
CREATE TABLE splits (
    id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), payment_id TEXT NOT NULL,
    merchant TEXT, provider TEXT NOT NULL, out_order_no TEXT NOT NULL UNIQUE, transaction_id TEXT NOT NULL,
    provider_order_id TEXT, shares TEXT NOT NULL, currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor >= 0), finish INTEGER NOT NULL DEFAULT 0,
    description TEXT NOT NULL, status TEXT NOT NULL, provider_state TEXT, failure_reason TEXT,
    version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX splits_order ON splits(order_id, created_at);
CREATE INDEX splits_unfinished ON splits(status, updated_at);
CREATE INDEX splits_finished ON splits(finished_at);
CREATE INDEX splits_merchant ON splits(merchant, created_at);
CREATE TABLE split_returns (
    id TEXT PRIMARY KEY, split_id TEXT NOT NULL REFERENCES splits(id), order_id TEXT NOT NULL,
    out_return_no TEXT NOT NULL UNIQUE, account TEXT NOT NULL, currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), description TEXT NOT NULL, status TEXT NOT NULL,
    provider_return_id TEXT, provider_state TEXT, failure_reason TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX split_returns_order ON split_returns(order_id, created_at);
CREATE INDEX split_returns_pending ON split_returns(status, updated_at);
CREATE INDEX splits_created ON splits(created_at);
CREATE INDEX transfers_created ON transfers(created_at);
CREATE INDEX transfers_finished ON transfers(finished_at)

-- 024_recurring
CREATE TABLE agreements (
    id TEXT PRIMARY KEY, merchant TEXT, provider TEXT NOT NULL, method TEXT NOT NULL,
    external_no TEXT NOT NULL, provider_agreement_id TEXT, payer TEXT, plan_id TEXT, description TEXT NOT NULL,
    period_unit TEXT NOT NULL, period_count INTEGER NOT NULL CHECK (period_count > 0), currency TEXT NOT NULL,
    single_limit_minor INTEGER NOT NULL CHECK (single_limit_minor > 0), first_charge_at INTEGER,
    status TEXT NOT NULL, provider_state TEXT, end_reason TEXT, version INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, activated_at INTEGER,
    ended_at INTEGER,
    UNIQUE (provider, external_no)
);
CREATE INDEX agreements_pending ON agreements(status, updated_at);
CREATE INDEX agreements_created ON agreements(created_at);
CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY, agreement_id TEXT NOT NULL REFERENCES agreements(id), merchant TEXT,
    currency TEXT NOT NULL, amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), description TEXT NOT NULL,
    interval_unit TEXT NOT NULL, interval_count INTEGER NOT NULL CHECK (interval_count > 0), anchor_at INTEGER NOT NULL,
    period INTEGER NOT NULL DEFAULT 0, next_charge_at INTEGER, max_attempts INTEGER NOT NULL CHECK (max_attempts > 0),
    status TEXT NOT NULL, cancel_reason TEXT, version INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, canceled_at INTEGER
);
CREATE INDEX subscriptions_due ON subscriptions(status, next_charge_at);
CREATE INDEX subscriptions_agreement ON subscriptions(agreement_id, created_at);
CREATE INDEX subscriptions_created ON subscriptions(created_at);
CREATE TABLE invoices (
    id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL REFERENCES subscriptions(id),
    period INTEGER NOT NULL CHECK (period > 0), order_id TEXT NOT NULL REFERENCES orders(id), currency TEXT NOT NULL,
    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0), status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, failures INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER, last_error TEXT, period_start INTEGER NOT NULL,
    version INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (subscription_id, period)
);
CREATE INDEX invoices_due ON invoices(status, next_attempt_at);
CREATE INDEX invoices_order ON invoices(order_id)

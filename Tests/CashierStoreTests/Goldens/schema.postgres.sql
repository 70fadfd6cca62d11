CREATE FUNCTION public.cashier_events_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'the event log is append-only'; END $$;
CREATE TABLE public.agreements (
    rowid bigint NOT NULL,
    id text NOT NULL,
    merchant text,
    provider text NOT NULL,
    method text NOT NULL,
    external_no text NOT NULL,
    provider_agreement_id text,
    payer text,
    plan_id text,
    description text NOT NULL,
    period_unit text NOT NULL,
    period_count integer NOT NULL,
    currency text NOT NULL,
    single_limit_minor bigint NOT NULL,
    first_charge_at bigint,
    status text NOT NULL,
    provider_state text,
    end_reason text,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    activated_at bigint,
    ended_at bigint,
    CONSTRAINT agreements_period_count_check CHECK ((period_count > 0)),
    CONSTRAINT agreements_single_limit_minor_check CHECK ((single_limit_minor > 0))
);
CREATE SEQUENCE public.agreements_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.agreements_rowid_seq OWNED BY public.agreements.rowid;
CREATE TABLE public.api_keys (
    id text NOT NULL,
    hash text NOT NULL,
    prefix text NOT NULL,
    label text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    last_used_at bigint,
    merchant text
);
CREATE TABLE public.complaints (
    rowid bigint NOT NULL,
    id text NOT NULL,
    provider text NOT NULL,
    provider_complaint_id text NOT NULL,
    provider_merchant_id text NOT NULL,
    merchant text,
    order_id text,
    payment_id text,
    out_trade_no text,
    state text NOT NULL,
    complained_at bigint NOT NULL,
    respond_by bigint NOT NULL,
    settle_by bigint NOT NULL,
    snapshot text NOT NULL,
    refund_decision text,
    refund_id text,
    respond_overdue_at bigint,
    settle_overdue_at bigint,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);
CREATE SEQUENCE public.complaints_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.complaints_rowid_seq OWNED BY public.complaints.rowid;
CREATE TABLE public.dashboard_sessions (
    id_hash text NOT NULL,
    csrf text NOT NULL,
    expires_at bigint NOT NULL,
    key_id text
);
CREATE TABLE public.events (
    sequence bigint NOT NULL,
    order_id text NOT NULL,
    kind text NOT NULL,
    from_status text,
    to_status text,
    detail text NOT NULL,
    body_sha256 text,
    created_at bigint NOT NULL
);
CREATE SEQUENCE public.events_sequence_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.events_sequence_seq OWNED BY public.events.sequence;
CREATE TABLE public.idempotency_keys (
    key text NOT NULL,
    request_sha256 text NOT NULL,
    status integer NOT NULL,
    body bytea NOT NULL,
    created_at bigint NOT NULL,
    holder text,
    locked_until bigint
);
CREATE TABLE public.invoices (
    rowid bigint NOT NULL,
    id text NOT NULL,
    subscription_id text NOT NULL,
    period integer NOT NULL,
    order_id text NOT NULL,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    failures integer DEFAULT 0 NOT NULL,
    next_attempt_at bigint,
    last_error text,
    period_start bigint NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    finished_at bigint,
    CONSTRAINT invoices_amount_minor_check CHECK ((amount_minor > 0)),
    CONSTRAINT invoices_period_check CHECK ((period > 0))
);
CREATE SEQUENCE public.invoices_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.invoices_rowid_seq OWNED BY public.invoices.rowid;
CREATE TABLE public.job_leases (
    job text NOT NULL,
    holder text NOT NULL,
    expires_at bigint NOT NULL
);
CREATE TABLE public.orders (
    rowid bigint NOT NULL,
    id text NOT NULL,
    out_trade_no text NOT NULL,
    status text NOT NULL,
    currency text NOT NULL,
    total_minor bigint NOT NULL,
    refunded_minor bigint DEFAULT 0 NOT NULL,
    description text NOT NULL,
    metadata text NOT NULL,
    items text NOT NULL,
    client_secret text NOT NULL,
    refund_required integer DEFAULT 0 NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    expires_at bigint,
    settled_payment_id text,
    sheet text,
    return_url text,
    merchant text,
    profit_sharing integer DEFAULT 0 NOT NULL
);
CREATE SEQUENCE public.orders_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.orders_rowid_seq OWNED BY public.orders.rowid;
CREATE TABLE public.outbox (
    rowid bigint NOT NULL,
    id text NOT NULL,
    order_id text NOT NULL,
    type text NOT NULL,
    payload text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at bigint NOT NULL,
    delivered_at bigint,
    created_at bigint NOT NULL,
    last_error text
);
CREATE SEQUENCE public.outbox_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.outbox_rowid_seq OWNED BY public.outbox.rowid;
CREATE TABLE public.payments (
    rowid bigint NOT NULL,
    id text NOT NULL,
    order_id text NOT NULL,
    method text NOT NULL,
    provider text NOT NULL,
    wallet text NOT NULL,
    out_trade_no text NOT NULL,
    app_id text,
    merchant_id text,
    payer text,
    transaction_id text,
    wallet_token text,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    refunded_minor bigint DEFAULT 0 NOT NULL,
    reserved_minor bigint DEFAULT 0 NOT NULL,
    status text NOT NULL,
    refund_required integer DEFAULT 0 NOT NULL,
    failure_reason text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    succeeded_at bigint,
    capture text,
    contacts text,
    shared_minor bigint DEFAULT 0 NOT NULL,
    CONSTRAINT payments_amount_minor_check CHECK ((amount_minor > 0)),
    CONSTRAINT payments_check CHECK (((refunded_minor >= 0) AND (refunded_minor <= reserved_minor) AND (reserved_minor <= amount_minor)))
);
CREATE SEQUENCE public.payments_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.payments_rowid_seq OWNED BY public.payments.rowid;
CREATE TABLE public.receivers (
    rowid bigint NOT NULL,
    id text NOT NULL,
    merchant text,
    merchant_key text NOT NULL,
    provider text NOT NULL,
    type text NOT NULL,
    account text NOT NULL,
    relation_type text NOT NULL,
    custom_relation text,
    status text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);
CREATE SEQUENCE public.receivers_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.receivers_rowid_seq OWNED BY public.receivers.rowid;
CREATE TABLE public.refunds (
    rowid bigint NOT NULL,
    id text NOT NULL,
    order_id text NOT NULL,
    payment_id text NOT NULL,
    out_refund_no text NOT NULL,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    status text NOT NULL,
    provider_refund_id text,
    reason text,
    failure_reason text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    finished_at bigint,
    confirmed_at bigint,
    requested_by text,
    CONSTRAINT refunds_amount_minor_check CHECK ((amount_minor > 0))
);
CREATE SEQUENCE public.refunds_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.refunds_rowid_seq OWNED BY public.refunds.rowid;
CREATE TABLE public.schema_migrations (
    name text NOT NULL,
    applied_at bigint NOT NULL
);
CREATE TABLE public.sign_in_failures (
    source text NOT NULL,
    at bigint NOT NULL
);
CREATE TABLE public.split_returns (
    rowid bigint NOT NULL,
    id text NOT NULL,
    split_id text NOT NULL,
    order_id text NOT NULL,
    out_return_no text NOT NULL,
    account text NOT NULL,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    description text NOT NULL,
    status text NOT NULL,
    provider_return_id text,
    provider_state text,
    failure_reason text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT split_returns_amount_minor_check CHECK ((amount_minor > 0))
);
CREATE SEQUENCE public.split_returns_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.split_returns_rowid_seq OWNED BY public.split_returns.rowid;
CREATE TABLE public.splits (
    rowid bigint NOT NULL,
    id text NOT NULL,
    order_id text NOT NULL,
    payment_id text NOT NULL,
    merchant text,
    provider text NOT NULL,
    out_order_no text NOT NULL,
    transaction_id text NOT NULL,
    provider_order_id text,
    shares text NOT NULL,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    finish integer DEFAULT 0 NOT NULL,
    description text NOT NULL,
    status text NOT NULL,
    provider_state text,
    failure_reason text,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    finished_at bigint,
    CONSTRAINT splits_amount_minor_check CHECK ((amount_minor >= 0))
);
CREATE SEQUENCE public.splits_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.splits_rowid_seq OWNED BY public.splits.rowid;
CREATE TABLE public.subscriptions (
    rowid bigint NOT NULL,
    id text NOT NULL,
    agreement_id text NOT NULL,
    merchant text,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    description text NOT NULL,
    interval_unit text NOT NULL,
    interval_count integer NOT NULL,
    anchor_at bigint NOT NULL,
    period integer DEFAULT 0 NOT NULL,
    next_charge_at bigint,
    max_attempts integer NOT NULL,
    status text NOT NULL,
    cancel_reason text,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    canceled_at bigint,
    CONSTRAINT subscriptions_amount_minor_check CHECK ((amount_minor > 0)),
    CONSTRAINT subscriptions_interval_count_check CHECK ((interval_count > 0)),
    CONSTRAINT subscriptions_max_attempts_check CHECK ((max_attempts > 0))
);
CREATE SEQUENCE public.subscriptions_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.subscriptions_rowid_seq OWNED BY public.subscriptions.rowid;
CREATE TABLE public.transfers (
    rowid bigint NOT NULL,
    id text NOT NULL,
    merchant text,
    provider text NOT NULL,
    out_bill_no text NOT NULL,
    provider_bill_no text,
    app_id text NOT NULL,
    openid text NOT NULL,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    remark text NOT NULL,
    scene text NOT NULL,
    user_name text,
    status text NOT NULL,
    provider_state text,
    package_info text,
    failure_reason text,
    version bigint DEFAULT 1 NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    finished_at bigint,
    CONSTRAINT transfers_amount_minor_check CHECK ((amount_minor > 0))
);
CREATE SEQUENCE public.transfers_rowid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.transfers_rowid_seq OWNED BY public.transfers.rowid;
ALTER TABLE ONLY public.agreements ALTER COLUMN rowid SET DEFAULT nextval('public.agreements_rowid_seq'::regclass);
ALTER TABLE ONLY public.complaints ALTER COLUMN rowid SET DEFAULT nextval('public.complaints_rowid_seq'::regclass);
ALTER TABLE ONLY public.events ALTER COLUMN sequence SET DEFAULT nextval('public.events_sequence_seq'::regclass);
ALTER TABLE ONLY public.invoices ALTER COLUMN rowid SET DEFAULT nextval('public.invoices_rowid_seq'::regclass);
ALTER TABLE ONLY public.orders ALTER COLUMN rowid SET DEFAULT nextval('public.orders_rowid_seq'::regclass);
ALTER TABLE ONLY public.outbox ALTER COLUMN rowid SET DEFAULT nextval('public.outbox_rowid_seq'::regclass);
ALTER TABLE ONLY public.payments ALTER COLUMN rowid SET DEFAULT nextval('public.payments_rowid_seq'::regclass);
ALTER TABLE ONLY public.receivers ALTER COLUMN rowid SET DEFAULT nextval('public.receivers_rowid_seq'::regclass);
ALTER TABLE ONLY public.refunds ALTER COLUMN rowid SET DEFAULT nextval('public.refunds_rowid_seq'::regclass);
ALTER TABLE ONLY public.split_returns ALTER COLUMN rowid SET DEFAULT nextval('public.split_returns_rowid_seq'::regclass);
ALTER TABLE ONLY public.splits ALTER COLUMN rowid SET DEFAULT nextval('public.splits_rowid_seq'::regclass);
ALTER TABLE ONLY public.subscriptions ALTER COLUMN rowid SET DEFAULT nextval('public.subscriptions_rowid_seq'::regclass);
ALTER TABLE ONLY public.transfers ALTER COLUMN rowid SET DEFAULT nextval('public.transfers_rowid_seq'::regclass);
ALTER TABLE ONLY public.agreements
    ADD CONSTRAINT agreements_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.agreements
    ADD CONSTRAINT agreements_provider_external_no_key UNIQUE (provider, external_no);
ALTER TABLE ONLY public.agreements
    ADD CONSTRAINT agreements_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_hash_key UNIQUE (hash);
ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.complaints
    ADD CONSTRAINT complaints_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.complaints
    ADD CONSTRAINT complaints_provider_provider_complaint_id_key UNIQUE (provider, provider_complaint_id);
ALTER TABLE ONLY public.complaints
    ADD CONSTRAINT complaints_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.dashboard_sessions
    ADD CONSTRAINT dashboard_sessions_pkey PRIMARY KEY (id_hash);
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (sequence);
ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key);
ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_subscription_id_period_key UNIQUE (subscription_id, period);
ALTER TABLE ONLY public.job_leases
    ADD CONSTRAINT job_leases_pkey PRIMARY KEY (job);
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_out_trade_no_key UNIQUE (out_trade_no);
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_wallet_out_trade_no_key UNIQUE (wallet, out_trade_no);
ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_wallet_token_key UNIQUE (wallet_token);
ALTER TABLE ONLY public.receivers
    ADD CONSTRAINT receivers_merchant_key_provider_type_account_key UNIQUE (merchant_key, provider, type, account);
ALTER TABLE ONLY public.receivers
    ADD CONSTRAINT receivers_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.receivers
    ADD CONSTRAINT receivers_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_out_refund_no_key UNIQUE (out_refund_no);
ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);
ALTER TABLE ONLY public.split_returns
    ADD CONSTRAINT split_returns_out_return_no_key UNIQUE (out_return_no);
ALTER TABLE ONLY public.split_returns
    ADD CONSTRAINT split_returns_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.split_returns
    ADD CONSTRAINT split_returns_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.splits
    ADD CONSTRAINT splits_out_order_no_key UNIQUE (out_order_no);
ALTER TABLE ONLY public.splits
    ADD CONSTRAINT splits_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.splits
    ADD CONSTRAINT splits_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_rowid_key UNIQUE (rowid);
ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_provider_out_bill_no_key UNIQUE (provider, out_bill_no);
ALTER TABLE ONLY public.transfers
    ADD CONSTRAINT transfers_rowid_key UNIQUE (rowid);
CREATE INDEX agreements_created ON public.agreements USING btree (created_at);
CREATE INDEX agreements_pending ON public.agreements USING btree (status, updated_at);
CREATE INDEX complaints_merchant ON public.complaints USING btree (merchant, state);
CREATE INDEX complaints_open ON public.complaints USING btree (state, respond_by, settle_by);
CREATE INDEX complaints_order ON public.complaints USING btree (order_id);
CREATE INDEX events_order ON public.events USING btree (order_id, sequence);
CREATE INDEX events_transition ON public.events USING btree (to_status, created_at) WHERE (to_status IS NOT NULL);
CREATE INDEX invoices_due ON public.invoices USING btree (status, next_attempt_at);
CREATE INDEX invoices_order ON public.invoices USING btree (order_id);
CREATE INDEX orders_created ON public.orders USING btree (created_at);
CREATE INDEX orders_expiry ON public.orders USING btree (status, expires_at);
CREATE INDEX orders_status ON public.orders USING btree (status, created_at);
CREATE INDEX orders_status_recent ON public.orders USING btree (status, rowid);
CREATE INDEX outbox_created ON public.outbox USING btree (created_at);
CREATE INDEX outbox_due ON public.outbox USING btree (delivered_at, next_attempt_at);
CREATE INDEX outbox_waiting ON public.outbox USING btree (order_id, next_attempt_at) WHERE (delivered_at IS NULL);
CREATE INDEX payments_created ON public.payments USING btree (created_at);
CREATE INDEX payments_number ON public.payments USING btree (out_trade_no);
CREATE INDEX payments_order ON public.payments USING btree (order_id, created_at);
CREATE INDEX payments_refund_required ON public.payments USING btree (created_at) WHERE (refund_required = 1);
CREATE INDEX payments_status ON public.payments USING btree (status, created_at);
CREATE INDEX payments_succeeded ON public.payments USING btree (succeeded_at);
CREATE INDEX payments_transaction ON public.payments USING btree (transaction_id);
CREATE INDEX refunds_created ON public.refunds USING btree (created_at);
CREATE INDEX refunds_finished ON public.refunds USING btree (finished_at);
CREATE INDEX refunds_order ON public.refunds USING btree (order_id, created_at);
CREATE INDEX refunds_payment ON public.refunds USING btree (payment_id);
CREATE INDEX refunds_provider_refund ON public.refunds USING btree (provider_refund_id);
CREATE INDEX refunds_status ON public.refunds USING btree (status, created_at);
CREATE INDEX sign_in_failures_by_source ON public.sign_in_failures USING btree (source, at);
CREATE INDEX split_returns_order ON public.split_returns USING btree (order_id, created_at);
CREATE INDEX split_returns_pending ON public.split_returns USING btree (status, updated_at);
CREATE INDEX splits_created ON public.splits USING btree (created_at);
CREATE INDEX splits_finished ON public.splits USING btree (finished_at);
CREATE INDEX splits_merchant ON public.splits USING btree (merchant, created_at);
CREATE INDEX splits_order ON public.splits USING btree (order_id, created_at);
CREATE INDEX splits_unfinished ON public.splits USING btree (status, updated_at);
CREATE INDEX subscriptions_agreement ON public.subscriptions USING btree (agreement_id, created_at);
CREATE INDEX subscriptions_created ON public.subscriptions USING btree (created_at);
CREATE INDEX subscriptions_due ON public.subscriptions USING btree (status, next_charge_at);
CREATE INDEX transfers_created ON public.transfers USING btree (created_at);
CREATE INDEX transfers_finished ON public.transfers USING btree (finished_at);
CREATE INDEX transfers_merchant ON public.transfers USING btree (merchant, created_at);
CREATE INDEX transfers_unfinished ON public.transfers USING btree (status, updated_at);
CREATE TRIGGER events_append_only BEFORE DELETE OR UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION public.cashier_events_append_only();
ALTER TABLE ONLY public.complaints
    ADD CONSTRAINT complaints_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE ONLY public.complaints
    ADD CONSTRAINT complaints_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES public.payments(id);
ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES public.subscriptions(id);
ALTER TABLE ONLY public.payments
    ADD CONSTRAINT payments_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE ONLY public.refunds
    ADD CONSTRAINT refunds_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES public.payments(id);
ALTER TABLE ONLY public.split_returns
    ADD CONSTRAINT split_returns_split_id_fkey FOREIGN KEY (split_id) REFERENCES public.splits(id);
ALTER TABLE ONLY public.splits
    ADD CONSTRAINT splits_order_id_fkey FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_agreement_id_fkey FOREIGN KEY (agreement_id) REFERENCES public.agreements(id);
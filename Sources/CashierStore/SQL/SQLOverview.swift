/// The statements behind ``Reports/overview(from:until:bucket:)``, one per figure. Each reads
/// a range of one indexed column (`payments.succeeded_at`, `refunds.finished_at`,
/// `orders.created_at`, `payments.created_at`) or the partial index of payments owed a refund, so
/// the overview costs what the period holds, not what the database holds; a test asks SQLite's
/// planner to prove it.
enum SQLOverview {
    /// What makes a payment wait for a refund: it took money it must give back, not all given yet.
    static let owed = "refund_required = 1 AND status = 'succeeded' AND refunded_minor < amount_minor"

    /// Per currency: payments that succeeded in the range, and their sum.
    static let gross = """
        SELECT currency, COUNT(*) AS payments, CAST(SUM(amount_minor) AS BIGINT) AS gross_minor FROM payments
            WHERE succeeded_at >= ? AND succeeded_at < ? GROUP BY currency
        """

    /// Per currency: refunds that went through in the range, and their sum.
    static let refunded = """
        SELECT currency, COUNT(*) AS refunds, CAST(SUM(amount_minor) AS BIGINT) AS refunded_minor FROM refunds
            WHERE status = 'succeeded' AND finished_at >= ? AND finished_at < ? GROUP BY currency
        """

    static let orders = "SELECT COUNT(*) AS orders FROM orders WHERE created_at >= ? AND created_at < ?"

    /// Payments started in the range (placed with a provider, not only reserved) and how many succeeded.
    static let attempts = """
        SELECT COUNT(*) AS started, CAST(SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END) AS BIGINT) AS succeeded FROM payments
            WHERE created_at >= ? AND created_at < ? AND status <> 'created'
        """

    /// Payments waiting for a refund, whenever they came.
    static let refundRequired = "SELECT COUNT(*) AS owed FROM payments WHERE \(owed)"

    /// Volume per slice of time: parameters start, slice length (ms), start, end.
    static let buckets = """
        SELECT (succeeded_at - ?) / ? AS slice, currency, COUNT(*) AS payments, CAST(SUM(amount_minor) AS BIGINT) AS gross_minor
            FROM payments
            WHERE succeeded_at >= ? AND succeeded_at < ? GROUP BY 1, 2 ORDER BY 1, 2
        """

    static let methods = """
        SELECT method, provider, currency, COUNT(*) AS payments, CAST(SUM(amount_minor) AS BIGINT) AS gross_minor FROM payments
            WHERE succeeded_at >= ? AND succeeded_at < ? GROUP BY method, provider, currency ORDER BY 5 DESC, 1
        """

    /// Migration `012_dashboard`, the same on SQLite and PostgreSQL: the indexes the overview, the
    /// lists, searches and exports read, and what operators' actions record.
    static let migration = """
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
        """

    /// Every statement, for the planner test.
    static let all = [gross, refunded, orders, attempts, refundRequired, buckets, methods]
}

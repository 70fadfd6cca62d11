extension SQLStatements {
    /// Migration 011: orders paid before payments and refunds were records get one payment each,
    /// from their last `payment_started` event (method, API, appid), and one refund for what they
    /// had refunded, so every order's money is in the records whatever version created it.
    /// Orders that never logged a started payment keep none (a notification for one creates it).
    /// - Parameters:
    ///   - method: the dialect's expression for the event detail's `method`.
    ///   - field: the same for another detail field.
    static func backfillPayments(method: String, field: (String) -> String) -> String {
        let received = "('paid', 'partially_refunded', 'refunded')"
        return """
            INSERT INTO payments (id, order_id, method, provider, wallet, out_trade_no, app_id, currency, amount_minor, refunded_minor,
                reserved_minor, status, refund_required, created_at, updated_at, succeeded_at)
            SELECT 'pay_legacy_' || o.id, o.id, \(method),
                CASE WHEN \(method) LIKE 'wechat.%' THEN 'wechat.' || COALESCE(\(field("api")), 'v2')
                     WHEN \(method) LIKE 'alipay.%' THEN 'alipay' ELSE 'applepay' END,
                CASE WHEN \(method) LIKE 'wechat.%' THEN 'wechat' WHEN \(method) LIKE 'alipay.%' THEN 'alipay' ELSE 'applepay' END,
                o.out_trade_no, \(field("appid")), o.currency, o.total_minor, o.refunded_minor, o.refunded_minor,
                CASE WHEN o.status IN \(received) THEN 'succeeded' WHEN o.status = 'pending' THEN 'pending'
                     WHEN o.status = 'failed' THEN 'failed' ELSE 'closed' END,
                o.refund_required, e.created_at, o.updated_at, CASE WHEN o.status IN \(received) THEN o.updated_at END
            FROM orders o JOIN events e ON e.sequence = (
                SELECT MAX(sequence) FROM events WHERE order_id = o.id AND kind = 'payment_started')
            WHERE \(method) IS NOT NULL AND o.total_minor > 0;
            INSERT INTO refunds (id, order_id, payment_id, out_refund_no, currency, amount_minor, status, created_at, updated_at, finished_at,
                confirmed_at)
            SELECT 're_legacy_' || o.id, o.id, p.id, 'legacy_' || o.id, o.currency, o.refunded_minor, 'succeeded', o.updated_at,
                o.updated_at, o.updated_at, o.updated_at
            FROM orders o JOIN payments p ON p.id = 'pay_legacy_' || o.id WHERE o.refunded_minor > 0;
            UPDATE orders SET settled_payment_id = 'pay_legacy_' || id WHERE status IN \(received)
                AND EXISTS (SELECT 1 FROM payments p WHERE p.id = 'pay_legacy_' || orders.id);
            """
    }
}

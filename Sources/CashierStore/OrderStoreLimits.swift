/// Bounds every ``OrderStore`` keeps on what the outside can make an order hold.
public enum OrderStoreLimits {
    /// Payment attempts one order takes (every kind, open, failed or closed; an open attempt of
    /// the same kind is reused and does not count again). A payer switching wallets makes one
    /// each time, a few in all; past this, ``PaymentLedger/beginPayment(_:now:)`` refuses, and the
    /// payer needs a new order. Each attempt is placed at its provider and closes the others
    /// there, so without a bound whoever holds the order's client secret could make the server
    /// call the providers without end.
    public static let attemptsPerOrder = 50

    /// Times one order's payment sheet may change it (a shipping method, contact or coupon that
    /// reprices it; an update that changes nothing does not count). A payer tries a few methods
    /// and a code or two; past this, ``OrderRecords/reprice(orderID:version:itemsJSON:total:sheetJSON:record:now:)``
    /// refuses, and the payer needs a new order. Each change is a line in the order's append-only
    /// log, so without a bound whoever holds the order's client secret could grow it without end.
    public static let sheetChangesPerOrder = 100
}

import Synchronization

/// How many log lines of reports from outside that changed nothing an order's log keeps. A
/// report is a provider's notification or webhook, or a payer's Apple Pay token: a record with the
/// hash of the body it came in (``EventRecord/bodySHA256``). Those that change nothing are repeats
/// of a recorded success, refused reports and tokens, and later words on a settled refund. A
/// provider repeats a notification until it is acknowledged, a dozen or two times at most, and
/// each repeat is logged. But some messages carry no time (a WeChat Pay v2 notification), so anyone
/// holding one valid signed copy could replay it without end, each copy a row in an append-only
/// log. Past ``perOrder`` such lines, a copy is still verified, checked and answered, and counted
/// in ``unlogged``, but not logged. Changes are always logged, whatever the count.
///
/// The count is kept by each store instance: it is read from the log the first time the
/// instance logs such a line for an order, then counted in memory. So the log keeps
/// ``perOrder`` of them for each instance that logs them, a few more when copies arrive at
/// several writers at once, and fewer only after a transaction that counted one rolled back.
public final class ReportLineLimit: Sendable {
    /// Lines kept for each order unless the store is opened with another number: fifty times
    /// what a provider repeats.
    public static let defaultPerOrder = 1_000

    /// Lines of reports that changed nothing kept for each order.
    public let perOrder: Int

    /// Orders whose count is known: lines counted, or ``perOrder`` once the order is full. Cleared
    /// when it reaches ``remembered`` (each order is then read from the log again).
    private let counts = Mutex<[String: Int]>([:])
    private static let remembered = 16_384
    private let skipped = Atomic<Int>(0)

    public init(perOrder: Int = ReportLineLimit.defaultPerOrder) {
        self.perOrder = max(0, perOrder)
    }

    /// Lines not logged so far because their order's log was full.
    public var unlogged: Int { skipped.load(ordering: .relaxed) }

    /// Whether one more line for `orderID` is logged (and then counted). `logged` reads how many
    /// the order's log has; it is called (outside the lock) only when this instance does not know.
    func admit(_ orderID: String, logged: () throws -> Int) rethrows -> Bool {
        let known: Bool? = counts.withLock { counts in
            guard let count = counts[orderID] else { return nil }
            guard count < perOrder else { return false }
            counts[orderID] = count + 1
            return true
        }
        if let known { return skip(unless: known) }
        let read = try logged()
        let admitted = counts.withLock { counts in
            // Another writer may have counted the order meanwhile: the larger count stands.
            let count = max(counts[orderID] ?? 0, read)
            if counts[orderID] == nil, counts.count >= Self.remembered { counts.removeAll(keepingCapacity: true) }
            counts[orderID] = min(count + 1, perOrder)
            return count < perOrder
        }
        return skip(unless: admitted)
    }

    private func skip(unless admitted: Bool) -> Bool {
        if !admitted { skipped.add(1, ordering: .relaxed) }
        return admitted
    }
}

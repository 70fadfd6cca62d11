public import Cashier
public import Foundation

/// Payment attempts: reserved before any provider is called, recorded once when it answers.
extension SQLOrderStore {
    /// How long a `processing` attempt (an authorisation in flight) blocks others: past this, its
    /// holder is taken to have died mid-call.
    static var processingLease: TimeInterval { 120 }

    public func beginPayment(_ new: NewPayment, now: Date) async throws -> PaymentStart {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let order = try SQLLedger.lockOrder(connection, new.orderID)
            guard order.settledPaymentID == nil, !order.status.hasReceivedMoney else {
                throw StoreError(.illegalTransition, "order \(order.id) is \(order.status.rawValue); it takes no new payment")
            }
            guard order.status != .closed else {
                throw StoreError(.illegalTransition, "order \(order.id) is closed; it takes no new payment")
            }
            if let expiry = order.expiresAt, now >= expiry {
                throw StoreError(.illegalTransition, "order \(order.id) expired; it takes no new payment")
            }
            let payments = try SQLLedger.payments(connection, orderIDs: [order.id])
            let busySince = SQLStatements.stamp(now.addingTimeInterval(-Self.processingLease))
            if payments.contains(where: { $0.status == .processing && SQLStatements.stamp($0.updatedAt) > busySince }) {
                throw StoreError(.inProgress, "an Apple Pay authorisation for order \(order.id) is in progress")
            }
            if let undecided = payments.first(where: \.awaitsProcessorDecision) {
                throw Self.undecided(undecided)
            }
            if let token = new.walletToken,
                try SQLLedger.payment(connection, where: "wallet_token = ?", [.text(token)]) != nil
            {
                throw StoreError(.conflict, "this Apple Pay token was presented before; a token is accepted once")
            }
            let payment: StoredPayment
            var reused = false
            if let same = payments.last(where: { ($0.status == .created || $0.status == .pending) && $0.matches(new) }) {
                reused = true
                if new.status == .processing {
                    try connection.query(
                        "UPDATE payments SET status = 'processing', wallet_token = ?, updated_at = ? WHERE id = ? AND status = ?",
                        [new.walletToken.map { .text($0) } ?? .null, .integer(at), .text(same.id), .text(same.status.rawValue)])
                }
                payment = try SQLLedger.payment(connection, where: "id = ?", [.text(same.id)]) ?? same
            } else {
                guard payments.count < OrderStoreLimits.attemptsPerOrder else {
                    throw StoreError(
                        .illegalTransition,
                        "order \(order.id) has had \(payments.count) payment attempts, the most one order takes: "
                            + "create a new order for the payer")
                }
                let used = Set(payments.filter { $0.method.wallet == new.method.wallet }.map(\.outTradeNo))
                let number = Self.tradeNumber(for: order.outTradeNo, avoiding: used)
                try connection.query(
                    """
                    INSERT INTO payments (id, order_id, method, provider, wallet, out_trade_no, app_id, merchant_id, payer, wallet_token,
                        currency, amount_minor, status, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(new.id), .text(order.id), .text(new.method.rawValue), .text(new.provider.rawValue),
                        .text(new.method.wallet.rawValue), .text(number), new.appID.map { .text($0) } ?? .null,
                        new.merchantID.map { .text($0) } ?? .null, new.payer.map { .text($0) } ?? .null,
                        new.walletToken.map { .text($0) } ?? .null, .text(order.total.currency.code), .integer(order.total.minorUnits),
                        .text(new.status.rawValue), .integer(at), .integer(at),
                    ])
                guard let inserted = try SQLLedger.payment(connection, where: "id = ?", [.text(new.id)]) else {
                    throw StoreError(.failed, "payment \(new.id) vanished after it was inserted")
                }
                payment = inserted
            }
            let record = new.record.map { Self.describe($0, payment) }
            let (updated, _) = try SQLLedger.settle(connection, order, record: record, at: at)
            return PaymentStart(
                order: updated, payment: payment, reused: reused, superseded: payments.filter { $0.status.isOpen && $0.id != payment.id })
        }
    }

    /// Why nothing else may happen to an order whose payment the processor has not decided.
    static func undecided(_ payment: StoredPayment) -> StoreError {
        StoreError(
            .inProgress,
            "payment \(payment.id) of order \(payment.orderID) awaits its card processor's decision (\(payment.transactionID ?? "")): "
                + "the order takes no other payment or price until the processor says")
    }

    /// `record` naming the attempt: its id, method, provider and trade number.
    static func describe(_ record: EventRecord, _ payment: StoredPayment) -> EventRecord {
        record.adding([
            "payment": payment.id, "method": payment.method.rawValue, "provider": payment.provider.rawValue,
            "out_trade_no": payment.outTradeNo,
        ])
    }

    /// The order's own number for its first attempt at a wallet; `…P2`, `…P3` for later ones
    /// (within WeChat's 32 characters, letters and digits only, so every provider takes them).
    static func tradeNumber(for base: String, avoiding used: Set<String>) -> String {
        guard used.contains(base) else { return base }
        var attempt = 2
        while true {
            let suffix = "P\(attempt)"
            let number = String(base.prefix(32 - suffix.count)) + suffix
            if !used.contains(number) { return number }
            attempt += 1
        }
    }

    public func recordPayment(_ outcome: PaymentOutcome, of paymentID: String, record: EventRecord, duplicate: EventRecord?, now: Date)
        async throws -> PaymentRecorded
    {
        let limit = reportLines
        return try await withTransaction { session in
            guard let found = try SQLLedger.paymentAndOrder(session.connection, where: "p.id = ?", [.text(paymentID)]) else {
                throw StoreError(.notFound, "no payment \(paymentID)")
            }
            return try Self.record(
                outcome, of: found, record: record, duplicate: duplicate, at: SQLStatements.stamp(now), limit: limit, session.connection)
        }
    }

    public func recordPayment(
        _ outcome: PaymentOutcome, wallet: PaymentMethod.Wallet, outTradeNo: String,
        accept: @escaping @Sendable (StoredPayment) throws -> Void, record: EventRecord, duplicate: EventRecord?, now: Date
    ) async throws -> PaymentRecorded? {
        try await withTransaction(
            Self.recording(
                outcome, wallet: wallet, outTradeNo: outTradeNo, accept: accept, record: record, duplicate: duplicate, now: now,
                limit: reportLines))
    }

    public func recordPayment(
        _ outcome: PaymentOutcome, wallet: PaymentMethod.Wallet, outTradeNo: String,
        accept: @escaping @Sendable (StoredPayment) throws -> Void, record: EventRecord, duplicate: EventRecord?, now: Date,
        then done: @escaping @Sendable (Result<PaymentRecorded?, any Error>) -> Void
    ) {
        withTransaction(
            Self.recording(
                outcome, wallet: wallet, outTradeNo: outTradeNo, accept: accept, record: record, duplicate: duplicate, now: now,
                limit: reportLines),
            then: done)
    }

    /// The transaction of ``recordPayment(_:wallet:outTradeNo:accept:record:duplicate:now:)``: the
    /// attempt found by its number with its order, `accept`ed, and the outcome recorded.
    private static func recording(
        _ outcome: PaymentOutcome, wallet: PaymentMethod.Wallet, outTradeNo: String,
        accept: @escaping @Sendable (StoredPayment) throws -> Void, record: EventRecord, duplicate: EventRecord?, now: Date,
        limit: ReportLineLimit
    ) -> @Sendable (SQLSession) throws -> PaymentRecorded? {
        { session in
            guard
                let found = try SQLLedger.paymentAndOrder(
                    session.connection, where: "p.wallet = ? AND p.out_trade_no = ?", [.text(wallet.rawValue), .text(outTradeNo)])
            else { return nil }
            try accept(found.payment)
            return try Self.record(
                outcome, of: found, record: record, duplicate: duplicate, at: SQLStatements.stamp(now), limit: limit, session.connection)
        }
    }

    /// The change `outcome` makes to a payment read (not locked) with its order, inside a transaction.
    private static func record(
        _ outcome: PaymentOutcome, of read: (payment: StoredPayment, order: StoredOrder), record: EventRecord, duplicate: EventRecord?,
        at: Int64, limit: ReportLineLimit, _ connection: any SQLConnection
    ) throws -> PaymentRecorded {
        let (found, seen) = read
        let paymentID = found.id
        // A success already recorded is final: a repeated notification needs no lock, only its log line.
        if case .succeeded(_, let amount) = outcome, found.status == .succeeded {
            guard amount == found.amount else {
                throw StoreError(
                    .illegalTransition, "payment \(paymentID) is for \(found.amount); a success for \(amount) is not recorded")
            }
            if let duplicate { try SQLStatements.insertUnchanged(duplicate, orderID: seen.id, at: at, limit: limit, connection) }
            return .unchanged(seen, found)
        }
        let order = try SQLLedger.lockOrder(connection, found.orderID)
        // Where rows lock (PostgreSQL), read it again under the order's lock; SQLite's writer holds the whole database.
        let payment =
            connection.lockingClause.isEmpty ? found : try SQLLedger.payment(connection, where: "id = ?", [.text(paymentID)]) ?? found
        func reread() throws -> StoredPayment { try SQLLedger.payment(connection, where: "id = ?", [.text(paymentID)]) ?? payment }
        func unchanged() throws -> PaymentRecorded {
            if let duplicate { try SQLStatements.insertUnchanged(duplicate, orderID: order.id, at: at, limit: limit, connection) }
            return .unchanged(order, payment)
        }
        switch outcome {
        case .placed:
            guard payment.status == .created else { return try unchanged() }
            try connection.query(
                "UPDATE payments SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'created'",
                [.integer(at), .text(paymentID)])
            guard connection.changes == 1 else { throw StoreError(.busy, "payment \(paymentID) changed underneath; retry") }
            let placed = try reread()
            let (updated, _) = try SQLLedger.settle(connection, order, record: Self.describe(record, placed), at: at)
            return .updated(updated, placed)
        case .accepted(let transactionID):
            guard payment.status == .processing else { return try unchanged() }
            try connection.query(
                "UPDATE payments SET status = 'pending', transaction_id = ?, updated_at = ? WHERE id = ? AND status = 'processing'",
                [.text(transactionID), .integer(at), .text(paymentID)])
            guard connection.changes == 1 else { throw StoreError(.busy, "payment \(paymentID) changed underneath; retry") }
            let accepted = try reread()
            let (updated, _) = try SQLLedger.settle(connection, order, record: record.adding(["payment": paymentID]), at: at)
            return .updated(updated, accepted)
        case .succeeded(let transactionID, let amount):
            guard amount == payment.amount else {
                throw StoreError(
                    .illegalTransition, "payment \(paymentID) is for \(payment.amount); a success for \(amount) is not recorded")
            }
            guard payment.status != .succeeded else { return try unchanged() }
            // The first success pays the order; one for a closed order, or after another
            // payment, is money that must go back.
            let settles = order.settledPaymentID == nil
            let flagged = !settles || order.status == .closed
            try connection.query(
                """
                UPDATE payments SET status = 'succeeded', transaction_id = COALESCE(?, transaction_id), refund_required = ?,
                    failure_reason = NULL, succeeded_at = ?, updated_at = ? WHERE id = ? AND status = ?
                """,
                [
                    transactionID.map { .text($0) } ?? .null, .integer(flagged ? 1 : 0), .integer(at), .integer(at), .text(paymentID),
                    .text(payment.status.rawValue),
                ])
            guard connection.changes == 1 else { throw StoreError(.busy, "payment \(paymentID) changed underneath; retry") }
            let paid = try reread()
            let (updated, transition) = try SQLLedger.settle(
                connection, order, settledPaymentID: paymentID, record: record.adding(["payment": paymentID]), at: at)
            if settles {
                if transition?.to == .paid {
                    try SQLStatements.enqueue(type: "order.paid", order: updated, payment: paid, at: at, connection)
                }
                if flagged {
                    try SQLStatements.enqueue(type: "order.refund_required", order: updated, payment: paid, at: at, connection)
                }
                return .settled(updated, paid)
            }
            try SQLStatements.insert(
                EventRecord(
                    kind: .duplicatePayment,
                    detail: JSONText.object([
                        "payment": paymentID, "settled_by": order.settledPaymentID ?? "", "amount": amount.decimalString,
                        "provider": paid.provider.rawValue, "out_trade_no": paid.outTradeNo,
                    ])), orderID: order.id, from: nil, to: nil, at: at, connection)
            try SQLStatements.enqueue(type: "order.refund_required", order: updated, payment: paid, at: at, connection)
            return .duplicatePayment(updated, paid)
        case .failed(let reason), .closed(let reason):
            let target: PaymentAttemptStatus = if case .failed = outcome { .failed } else { .closed }
            guard payment.status != target, payment.status.canMove(to: target) else { return try unchanged() }
            try connection.query(
                "UPDATE payments SET status = ?, failure_reason = ?, updated_at = ? WHERE id = ? AND status = ?",
                [.text(target.rawValue), .text(reason), .integer(at), .text(paymentID), .text(payment.status.rawValue)])
            guard connection.changes == 1 else { throw StoreError(.busy, "payment \(paymentID) changed underneath; retry") }
            let (updated, _) = try SQLLedger.settle(connection, order, record: record.adding(["payment": paymentID]), at: at)
            return .updated(updated, try reread())
        }
    }

    public func close(orderID: String, record: EventRecord, now: Date) async throws -> TransitionOutcome {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let order = try SQLLedger.lockOrder(connection, orderID)
            if order.status == .closed { return .unchanged(order) }
            let transition: PaymentTransition
            do {
                transition = try PaymentStateMachine.transition(from: order.status, on: .closed)
            } catch {
                throw StoreError(.illegalTransition, "order \(orderID) is \(order.status.rawValue) and cannot be closed")
            }
            let busySince = SQLStatements.stamp(now.addingTimeInterval(-Self.processingLease))
            let payments = try SQLLedger.payments(connection, orderIDs: [orderID])
            if payments.contains(where: { $0.status == .processing && SQLStatements.stamp($0.updatedAt) > busySince }) {
                throw StoreError(.inProgress, "an Apple Pay authorisation for order \(orderID) is in progress")
            }
            try connection.query(
                "UPDATE payments SET status = 'closed', failure_reason = ?, updated_at = ? WHERE order_id = ? AND status IN ('created', 'pending', 'processing')",
                [.text("the order was closed"), .integer(at), .text(orderID)])
            try connection.query(
                "UPDATE orders SET status = 'closed', version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
                [.integer(at), .text(orderID), .integer(order.version)])
            guard connection.changes == 1 else { throw StoreError(.busy, "order \(orderID) changed underneath; retry") }
            try SQLStatements.insert(record, orderID: orderID, from: transition.from, to: transition.to, at: at, connection)
            guard let updated = try SQLStatements.fetch(connection, where: "id = ?", .text(orderID)) else {
                throw StoreError(.failed, "order \(orderID) vanished while closing")
            }
            try SQLStatements.enqueue(type: "order.closed", order: updated, at: at, connection)
            return .applied(updated, transition)
        }
    }

    public func reprice(
        orderID: String, version: Int64, itemsJSON: String, total: Money, sheetJSON: String, record: EventRecord, now: Date
    ) async throws -> StoredOrder? {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let order = try SQLLedger.lockOrder(connection, orderID)
            guard order.status == .created || order.status == .pending else {
                throw StoreError(.illegalTransition, "order \(orderID) is \(order.status.rawValue): its price can no longer change")
            }
            guard order.version == version else { return nil }
            // Counted under the order's lock, so instances sharing the database cannot pass it together.
            let changes = try connection.query(
                "SELECT count(*) AS changes FROM events WHERE order_id = ? AND kind = ?",
                [.text(orderID), .text(EventKind.sheetUpdated.rawValue)])
            let changed = Int(try changes.first?.integer("changes") ?? 0)
            guard changed < OrderStoreLimits.sheetChangesPerOrder else {
                throw StoreError(
                    .illegalTransition,
                    "order \(orderID)'s payment sheet has changed it \(changed) times, the most one order takes: "
                        + "create a new order for the payer")
            }
            guard total.currency == order.total.currency else {
                throw StoreError(.illegalTransition, "order \(orderID) is in \(order.total.currency.code), not \(total.currency.code)")
            }
            let open = try SQLLedger.payments(connection, orderIDs: [orderID]).filter {
                $0.status == .created || $0.status == .pending || $0.status == .processing
            }
            if open.contains(where: { $0.status == .processing }) {
                throw StoreError(.inProgress, "an Apple Pay authorisation for order \(orderID) is in progress")
            }
            if let undecided = open.first(where: \.awaitsProcessorDecision) { throw Self.undecided(undecided) }
            // An attempt at a wallet would still take the old amount: only Apple Pay's, whose token
            // is checked against the order's total when it arrives, may stay open.
            if let other = open.first(where: { $0.provider != .applePay }) {
                throw StoreError(
                    .illegalTransition, "order \(orderID) has a \(other.method.rawValue) payment open for \(other.amount): close it first")
            }
            try connection.query(
                """
                UPDATE orders SET items = ?, total_minor = ?, sheet = ?, version = version + 1, updated_at = ?
                    WHERE id = ? AND version = ?
                """,
                [.text(itemsJSON), .integer(total.minorUnits), .text(sheetJSON), .integer(at), .text(orderID), .integer(version)])
            guard connection.changes == 1 else { return nil }
            try connection.query(
                "UPDATE payments SET amount_minor = ?, updated_at = ? WHERE order_id = ? AND status IN ('created', 'pending')",
                [.integer(total.minorUnits), .integer(at), .text(orderID)])
            try SQLStatements.insert(record, orderID: orderID, from: nil, to: nil, at: at, connection)
            return try SQLStatements.fetch(connection, where: "id = ?", .text(orderID))
        }
    }

    // MARK: Reads

    public func payment(id: String) async throws -> StoredPayment? {
        try await withReading { try SQLLedger.payment($0.connection, where: "id = ?", [.text(id)]) }
    }

    public func payment(wallet: PaymentMethod.Wallet, outTradeNo: String) async throws -> StoredPayment? {
        try await withReading {
            try SQLLedger.payment($0.connection, where: "wallet = ? AND out_trade_no = ?", [.text(wallet.rawValue), .text(outTradeNo)])
        }
    }

    public func payments(wallet: PaymentMethod.Wallet, outTradeNos: [String]) async throws -> [String: StoredPayment] {
        guard let first = outTradeNos.first else { return [:] }
        // Fixed-size batches (the last padded with a repeat): one statement text, prepared once.
        // A thousand a statement: reconciliation asks for a thousand at a time, and on PostgreSQL
        // each statement is a round trip (ten of a hundred made reconciling 2.0 × parsing at 2.5 M
        // orders, `cashier-bench scale`); both databases take far more parameters.
        let size = 1000
        let sql = "SELECT \(SQLLedger.paymentColumns) FROM payments WHERE wallet = ? AND out_trade_no IN (\(SQLLedger.placeholders(size)))"
        return try await withReading { session in
            var found: [String: StoredPayment] = [:]
            found.reserveCapacity(outTradeNos.count)
            for start in stride(from: 0, to: outTradeNos.count, by: size) {
                var batch = Array(outTradeNos[start..<min(start + size, outTradeNos.count)])
                batch += Array(repeating: first, count: size - batch.count)
                for row in try session.connection.query(sql, [.text(wallet.rawValue)] + batch.map { .text($0) }) {
                    let payment = try StoredPayment(row: row)
                    found[payment.outTradeNo] = payment
                }
            }
            return found
        }
    }

    public func payments(orderIDs: [String]) async throws -> [StoredPayment] {
        try await withReading { try SQLLedger.payments($0.connection, orderIDs: orderIDs) }
    }

    public func setContacts(_ contacts: PaymentContacts, of paymentID: String, now: Date) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(contacts), as: UTF8.self)
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE payments SET contacts = ?, updated_at = ? WHERE id = ?",
                [.text(text), .integer(SQLStatements.stamp(now)), .text(paymentID)])
        }
    }

    public func moveCapture(of paymentID: String, from: CaptureState?, to: CaptureState, record: EventRecord?, now: Date) async throws
        -> StoredPayment?
    {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let condition = from.map { _ in "capture = ?" } ?? "capture IS NULL"
            try connection.query(
                "UPDATE payments SET capture = ?, updated_at = ? WHERE id = ? AND \(condition)",
                [.text(to.rawValue), .integer(at), .text(paymentID)] + (from.map { [.text($0.rawValue)] } ?? []))
            guard connection.changes == 1, let payment = try SQLLedger.payment(connection, where: "id = ?", [.text(paymentID)]) else {
                return nil
            }
            if let record { try SQLStatements.insert(record, orderID: payment.orderID, from: nil, to: nil, at: at, connection) }
            return payment
        }
    }

    public func pendingPayments(startedBefore date: Date, limit: Int) async throws -> [StoredPayment] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(SQLLedger.paymentColumns) FROM payments WHERE status = 'pending' AND created_at <= ? ORDER BY created_at LIMIT ?",
                [.integer(SQLStatements.stamp(date)), .integer(Int64(limit))]
            ).map(StoredPayment.init(row:))
        }
    }

    public func succeededPayments(from: Date, until: Date, after: StoredPayment?, limit: Int) async throws -> [StoredPayment] {
        // After the last payment of the page before: its time as stored (whole milliseconds: the
        // nearest, where `stamp` would round a time read back down past it), then its id.
        let start =
            after?.succeededAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? SQLStatements.stamp(from)
        return try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLLedger.paymentColumns) FROM payments WHERE succeeded_at >= ? AND succeeded_at < ?
                    AND (succeeded_at > ? OR id > ?) ORDER BY succeeded_at, id LIMIT ?
                """,
                [
                    .integer(start), .integer(SQLStatements.stamp(until)), .integer(after == nil ? start - 1 : start),
                    .text(after?.id ?? ""), .integer(Int64(max(1, limit))),
                ]
            ).map(StoredPayment.init(row:))
        }
    }

    public func unrefundedDuplicates(limit: Int) async throws -> [StoredPayment] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLLedger.paymentColumns) FROM payments WHERE refund_required = 1 AND status = 'succeeded'
                    AND reserved_minor < amount_minor ORDER BY succeeded_at LIMIT ?
                """,
                [.integer(Int64(limit))]
            ).map(StoredPayment.init(row:))
        }
    }
}

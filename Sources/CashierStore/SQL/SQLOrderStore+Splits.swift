public import Cashier
import CashierWire
public import Foundation

/// Splits: reserved against their order's payment under the order's lock (the lock refunds take
/// too), moved by compare-and-set on their version, never out of a final status. What a payment's
/// splits hold (`payments.shared_minor`) is counted again from its splits on every change.
extension SQLOrderStore {
    public func reserveSplit(_ new: NewSplit, now: Date) async throws -> SplitReservation {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let order = try SQLLedger.lockOrder(connection, new.orderID)
            if let existing = try SQLOrderStoreSplits.fetch(connection, "out_order_no = ?", [.text(new.outOrderNo)]) {
                guard existing.orderID == order.id else {
                    throw StoreError(.conflict, "split number \(new.outOrderNo) was used for another order's split")
                }
                return .existing(existing)
            }
            guard order.profitSharing else {
                throw StoreError(
                    .illegalTransition,
                    "order \(order.id) was not placed for profit sharing: create the order with \"profit_sharing\": true, "
                        + "so the provider keeps its money frozen for the split")
            }
            guard let paymentID = order.settledPaymentID,
                let payment = try SQLLedger.payment(connection, where: "id = ?", [.text(paymentID)]), payment.status == .succeeded,
                let transactionID = payment.transactionID
            else { throw StoreError(.illegalTransition, "order \(order.id) is \(order.status.rawValue): nothing was paid to share") }
            let earlier = try SQLOrderStoreSplits.all(connection, "order_id = ?", [.text(order.id)])
            if let finished = earlier.first(where: { $0.finish && $0.status != .failed }) {
                throw StoreError(
                    .illegalTransition, "the sharing of order \(order.id) was finished by split \(finished.id): nothing more can be shared")
            }
            let amount = new.shares.reduce(Int64(0)) { $0 + $1.amountMinor }
            let currency = payment.amount.currency
            let held = payment.reserved.minorUnits + payment.sharedMinor
            guard amount <= payment.amount.minorUnits - held else {
                throw StoreError(
                    .limitExceeded,
                    "shares of \(Money(minorUnits: amount, currency: currency)) are more than order \(order.id) has left to share: "
                        + "of the \(payment.amount) paid, \(payment.reserved) is refunded or being refunded and "
                        + "\(Money(minorUnits: payment.sharedMinor, currency: currency)) is shared already")
            }
            // The database checks the same bound: refunds and shares never exceed what was paid.
            try connection.query(
                """
                UPDATE payments SET shared_minor = shared_minor + ?, updated_at = ?
                WHERE id = ? AND reserved_minor + shared_minor + ? <= amount_minor
                """, [.integer(amount), .integer(at), .text(paymentID), .integer(amount)])
            guard connection.changes == 1 else { throw StoreError(.limitExceeded, "payment \(paymentID) has too little left to share") }
            try connection.query(
                """
                INSERT INTO splits (id, order_id, payment_id, merchant, provider, out_order_no, transaction_id, shares, currency,
                    amount_minor, finish, description, status, version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?)
                """,
                [
                    .text(new.id), .text(order.id), .text(paymentID), new.merchant.map { .text($0) } ?? .null,
                    .text(payment.provider.rawValue), .text(new.outOrderNo), .text(transactionID),
                    .text(try SQLOrderStoreSplits.encode(new.shares)), .text(currency.code), .integer(amount), .integer(new.finish ? 1 : 0),
                    .text(new.description), .integer(at), .integer(at),
                ])
            guard let split = try SQLOrderStoreSplits.fetch(connection, "id = ?", [.text(new.id)]) else {
                throw StoreError(.failed, "split \(new.id) vanished after it was inserted")
            }
            return .reserved(split)
        }
    }

    public func moveSplit(_ id: String, to progress: SplitProgress, now: Date) async throws -> SplitMoved {
        try await withTransaction { session in
            let connection = session.connection
            let current = try SQLOrderStoreSplits.locked(connection, id)
            guard !current.status.isFinal, SQLOrderStoreSplits.rank(progress.status) >= SQLOrderStoreSplits.rank(current.status) else {
                return .unchanged(current)
            }
            var shares = current.shares
            for index in shares.indices {
                guard let word = progress.shares.first(where: { $0.account == shares[index].account && $0.type == shares[index].type })
                else { continue }
                shares[index].result = word.result
                shares[index].failReason = word.failReason ?? shares[index].failReason
                shares[index].detailID = word.detailID ?? shares[index].detailID
            }
            guard
                current.status != progress.status || current.providerState != progress.providerState || shares != current.shares
                    || (progress.providerOrderID != nil && current.providerOrderID != progress.providerOrderID)
                    || current.failureReason != progress.failureReason
            else { return .unchanged(current) }
            let at = SQLStatements.stamp(now)
            try connection.query(
                """
                UPDATE splits SET status = ?, provider_state = ?, provider_order_id = COALESCE(?, provider_order_id), shares = ?,
                    failure_reason = ?, finished_at = ?, version = version + 1, updated_at = ?
                WHERE id = ? AND version = ?
                """,
                [
                    .text(progress.status.rawValue), .text(progress.providerState), progress.providerOrderID.map { .text($0) } ?? .null,
                    .text(try SQLOrderStoreSplits.encode(shares)), progress.failureReason.map { .text($0) } ?? .null,
                    progress.status.isFinal ? .integer(at) : .null, .integer(at), .text(id), .integer(current.version),
                ])
            guard connection.changes == 1, let moved = try SQLOrderStoreSplits.fetch(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.busy, "split \(id) changed underneath; retry")
            }
            try SQLOrderStoreSplits.recount(connection, paymentID: moved.paymentID, at: at)
            // Its webhooks, in the same transaction: accepted by the provider, then how it ended.
            if current.status == .pending, moved.status != .failed {
                try SQLOrderStoreSplits.enqueue("split.created", moved, at: at, connection)
            }
            if moved.status.isFinal {
                try SQLOrderStoreSplits.enqueue(moved.status == .finished ? "split.finished" : "split.failed", moved, at: at, connection)
            }
            return .changed(from: current, to: moved)
        }
    }

    public func split(id: String) async throws -> StoredSplit? {
        try await withReading { try SQLOrderStoreSplits.fetch($0.connection, "id = ?", [.text(id)]) }
    }

    public func split(provider: String, outOrderNo: String) async throws -> StoredSplit? {
        try await withReading {
            try SQLOrderStoreSplits.fetch($0.connection, "provider = ? AND out_order_no = ?", [.text(provider), .text(outOrderNo)])
        }
    }

    public func splits(orderID: String) async throws -> [StoredSplit] {
        try await withReading { try SQLOrderStoreSplits.all($0.connection, "order_id = ?", [.text(orderID)]) }
    }

    public func splits(merchant: String?, limit: Int, offset: Int) async throws -> [StoredSplit] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SplitColumn.list) FROM splits \(merchant == nil ? "" : "WHERE merchant = ?")
                ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?
                """, (merchant.map { [SQLValue.text($0)] } ?? []) + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredSplit.init(row:))
        }
    }

    public func unfinishedSplits(before: Date, limit: Int) async throws -> [StoredSplit] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SplitColumn.list) FROM splits WHERE status IN ('pending', 'processing') AND updated_at < ?
                ORDER BY updated_at, id LIMIT ?
                """, [.integer(SQLStatements.stamp(before)), .integer(Int64(limit))]
            ).map(StoredSplit.init(row:))
        }
    }

    public func splits(createdFrom from: Date, until: Date, merchant: String?, limit: Int, offset: Int) async throws -> [StoredSplit] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SplitColumn.list) FROM splits WHERE created_at >= ? AND created_at < ?\(merchant == nil ? "" : " AND merchant = ?")
                ORDER BY created_at, id LIMIT ? OFFSET ?
                """,
                [.integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))] + (merchant.map { [SQLValue.text($0)] } ?? [])
                    + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredSplit.init(row:))
        }
    }

    public func finishedSplits(from: Date, until: Date) async throws -> [StoredSplit] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SplitColumn.list) FROM splits WHERE status = 'finished' AND finished_at >= ? AND finished_at < ?
                ORDER BY finished_at, id
                """, [.integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))]
            ).map(StoredSplit.init(row:))
        }
    }
}

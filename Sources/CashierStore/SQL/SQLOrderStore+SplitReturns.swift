public import Cashier
import CashierWire
public import Foundation

/// Returns: reserved against one share of a split under the order's lock, then moved once by the
/// provider's word; a success gives the amount back to the payment (refundable or shareable again).
extension SQLOrderStore {
    public func reserveSplitReturn(_ new: NewSplitReturn, now: Date) async throws -> (splitReturn: StoredSplitReturn, reserved: Bool) {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let split = try SQLOrderStoreSplits.locked(connection, new.splitID)
            if let existing = try SQLOrderStoreSplits.fetchReturn(connection, "out_return_no = ?", [.text(new.outReturnNo)]) {
                guard existing.splitID == split.id, existing.account == new.account, existing.amount.minorUnits == new.amountMinor else {
                    throw StoreError(.conflict, "return number \(new.outReturnNo) was used for another return")
                }
                return (existing, false)
            }
            guard split.status == .finished,
                let index = split.shares.firstIndex(where: { $0.account == new.account && $0.result == .succeeded })
            else {
                throw StoreError(
                    .illegalTransition,
                    "split \(split.id) is \(split.status.rawValue) and gave \(new.account) nothing that arrived: there is nothing to return"
                )
            }
            var shares = split.shares
            let currency = split.amount.currency
            guard new.amountMinor > 0, new.amountMinor <= shares[index].returnableMinor else {
                throw StoreError(
                    .limitExceeded,
                    "a return of \(Money(minorUnits: new.amountMinor, currency: currency)) is more than \(new.account) has left of "
                        + "split \(split.id): \(Money(minorUnits: shares[index].returnableMinor, currency: currency))")
            }
            shares[index].returningMinor += new.amountMinor
            try SQLOrderStoreSplits.rewrite(connection, split, shares: shares, at: at)
            try connection.query(
                """
                INSERT INTO split_returns (id, split_id, order_id, out_return_no, account, currency, amount_minor, description, status,
                    created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
                """,
                [
                    .text(new.id), .text(split.id), .text(split.orderID), .text(new.outReturnNo), .text(new.account), .text(currency.code),
                    .integer(new.amountMinor), .text(new.description), .integer(at), .integer(at),
                ])
            guard let made = try SQLOrderStoreSplits.fetchReturn(connection, "id = ?", [.text(new.id)]) else {
                throw StoreError(.failed, "return \(new.id) vanished after it was inserted")
            }
            return (made, true)
        }
    }

    public func moveSplitReturn(_ id: String, to progress: SplitReturnProgress, now: Date) async throws -> StoredSplitReturn {
        try await withTransaction { session in
            let connection = session.connection
            guard let found = try SQLOrderStoreSplits.fetchReturn(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.notFound, "no return \(id)")
            }
            let split = try SQLOrderStoreSplits.locked(connection, found.splitID)
            guard let current = try SQLOrderStoreSplits.fetchReturn(connection, "id = ?", [.text(id)]), current.status == .pending else {
                return found
            }
            let at = SQLStatements.stamp(now)
            try connection.query(
                """
                UPDATE split_returns SET status = ?, provider_state = ?, provider_return_id = COALESCE(?, provider_return_id),
                    failure_reason = ?, updated_at = ?
                WHERE id = ? AND status = 'pending'
                """,
                [
                    .text(progress.status.rawValue), .text(progress.providerState), progress.providerReturnID.map { .text($0) } ?? .null,
                    progress.failureReason.map { .text($0) } ?? .null, .integer(at), .text(id),
                ])
            guard connection.changes == 1, let moved = try SQLOrderStoreSplits.fetchReturn(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.busy, "return \(id) changed underneath; retry")
            }
            guard progress.status.isFinal else { return moved }
            var shares = split.shares
            if let index = shares.firstIndex(where: { $0.account == current.account && $0.result == .succeeded }) {
                shares[index].returningMinor -= current.amount.minorUnits
                if progress.status == .succeeded { shares[index].returnedMinor += current.amount.minorUnits }
            }
            let rewritten = try SQLOrderStoreSplits.rewrite(connection, split, shares: shares, at: at)
            try SQLOrderStoreSplits.recount(connection, paymentID: split.paymentID, at: at)
            try SQLOrderStoreSplits.enqueue(
                progress.status == .succeeded ? "split.returned" : "split.return_failed", rewritten, splitReturn: moved, at: at, connection)
            return moved
        }
    }

    public func splitReturn(id: String) async throws -> StoredSplitReturn? {
        try await withReading { try SQLOrderStoreSplits.fetchReturn($0.connection, "id = ?", [.text(id)]) }
    }

    public func splitReturns(orderID: String) async throws -> [StoredSplitReturn] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(SplitReturnColumn.list) FROM split_returns WHERE order_id = ? ORDER BY created_at, id", [.text(orderID)]
            ).map(StoredSplitReturn.init(row:))
        }
    }

    public func pendingSplitReturns(before: Date, limit: Int) async throws -> [StoredSplitReturn] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SplitReturnColumn.list) FROM split_returns WHERE status = 'pending' AND updated_at < ?
                ORDER BY updated_at, id LIMIT ?
                """, [.integer(SQLStatements.stamp(before)), .integer(Int64(limit))]
            ).map(StoredSplitReturn.init(row:))
        }
    }
}

import Cashier
public import Foundation

/// Refunds: reserved against their payment before the provider is asked, finished once.
extension SQLOrderStore {
    public func reserveRefund(_ new: NewRefund, now: Date) async throws -> RefundReservation {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let order = try SQLLedger.lockOrder(connection, new.orderID)
            if let existing = try SQLLedger.refund(connection, where: "out_refund_no = ?", [.text(new.outRefundNo)]) {
                guard existing.orderID == order.id, new.paymentID.map({ $0 == existing.paymentID }) ?? true,
                    new.amount.map({ $0 == existing.amount }) ?? true,
                    let payment = try SQLLedger.payment(connection, where: "id = ?", [.text(existing.paymentID)])
                else {
                    throw StoreError(.conflict, "refund number \(new.outRefundNo) was used for another refund")
                }
                return .existing(existing, payment)
            }
            guard let paymentID = new.paymentID ?? order.settledPaymentID else {
                throw StoreError(.illegalTransition, "order \(order.id) is \(order.status.rawValue): nothing was paid to refund")
            }
            guard let payment = try SQLLedger.payment(connection, where: "id = ? AND order_id = ?", [.text(paymentID), .text(order.id)])
            else { throw StoreError(.notFound, "order \(order.id) has no payment \(paymentID)") }
            guard payment.status == .succeeded else {
                throw StoreError(.illegalTransition, "payment \(paymentID) is \(payment.status.rawValue): it took no money to refund")
            }
            let amount = new.amount ?? payment.refundable
            guard amount.currency == payment.amount.currency else {
                throw StoreError(.limitExceeded, "payment \(paymentID) is in \(payment.amount.currency.code), not \(amount.currency.code)")
            }
            guard amount.minorUnits > 0 else {
                throw StoreError(
                    .limitExceeded,
                    new.amount == nil
                        ? "nothing is left to refund: \(payment.reserved) of the \(payment.amount) paid is refunded or being refunded"
                        : "a refund must be more than zero")
            }
            let (total, overflow) = (payment.reserved.minorUnits + payment.sharedMinor).addingReportingOverflow(amount.minorUnits)
            guard !overflow, total <= payment.amount.minorUnits else {
                let shared = Money(minorUnits: payment.sharedMinor, currency: payment.amount.currency)
                throw StoreError(
                    .limitExceeded,
                    payment.sharedMinor > 0
                        ? "a refund of \(amount) is more than payment \(paymentID) has left: of the \(payment.amount) it took, "
                            + "\(payment.reserved) is refunded or being refunded and \(shared) is shared with receivers. "
                            + "Return the shares first (POST /v1/splits/{split}/returns), then refund"
                        : "a refund of \(amount) would bring refunds of payment \(paymentID) to more than the \(payment.amount) it took "
                            + "(\(payment.reserved) is refunded or being refunded)")
            }
            // The database checks the same bound: refunds and shares never exceed what was paid.
            try connection.query(
                """
                UPDATE payments SET reserved_minor = reserved_minor + ?, updated_at = ?
                WHERE id = ? AND reserved_minor + shared_minor + ? <= amount_minor
                """,
                [.integer(amount.minorUnits), .integer(at), .text(paymentID), .integer(amount.minorUnits)])
            guard connection.changes == 1 else { throw StoreError(.limitExceeded, "payment \(paymentID) has too little left to refund") }
            try connection.query(
                """
                INSERT INTO refunds (id, order_id, payment_id, out_refund_no, currency, amount_minor, status, reason, created_at, updated_at,
                    requested_by)
                VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
                """,
                [
                    .text(new.id), .text(order.id), .text(paymentID), .text(new.outRefundNo), .text(amount.currency.code),
                    .integer(amount.minorUnits), new.reason.map { .text($0) } ?? .null, .integer(at), .integer(at),
                    new.requestedBy.map { .text($0) } ?? .null,
                ])
            guard let refund = try SQLLedger.refund(connection, where: "id = ?", [.text(new.id)]),
                let reserved = try SQLLedger.payment(connection, where: "id = ?", [.text(paymentID)])
            else { throw StoreError(.failed, "refund \(new.id) vanished after it was inserted") }
            return .reserved(refund, reserved)
        }
    }

    public func finishRefund(_ refundID: String, outcome: RefundOutcome, now: Date) async throws -> RefundFinished {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            guard let found = try SQLLedger.refund(connection, where: "id = ?", [.text(refundID)]) else {
                throw StoreError(.notFound, "no refund \(refundID)")
            }
            let order = try SQLLedger.lockOrder(connection, found.orderID)
            guard let refund = try SQLLedger.refund(connection, where: "id = ?", [.text(refundID)]) else {
                throw StoreError(.notFound, "no refund \(refundID)")
            }
            let amount = refund.amount.minorUnits
            var detail = [
                "refund": refund.id, "payment": refund.paymentID, "amount": refund.amount.decimalString, "request_no": refund.outRefundNo,
            ]
            if let by = refund.requestedBy { detail["by"] = by }
            let record: EventRecord
            let webhook: String
            switch outcome {
            case .succeeded(let providerRefundID), .confirmed(let providerRefundID):
                let confirmed: SQLValue = if case .confirmed = outcome { .integer(at) } else { .null }
                if refund.status == .succeeded, case .confirmed = outcome {
                    // The final word on a refund already counted: nothing moves.
                    try connection.query(
                        "UPDATE refunds SET confirmed_at = COALESCE(confirmed_at, ?), updated_at = ? WHERE id = ?",
                        [.integer(at), .integer(at), .text(refundID)])
                    return .unchanged(order, try SQLLedger.refund(connection, where: "id = ?", [.text(refundID)]) ?? refund)
                }
                guard refund.status.canMove(to: .succeeded) else { return .unchanged(order, refund) }
                try connection.query(
                    """
                    UPDATE refunds SET status = 'succeeded', provider_refund_id = COALESCE(?, provider_refund_id), finished_at = ?,
                        confirmed_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'
                    """,
                    [providerRefundID.map { .text($0) } ?? .null, .integer(at), confirmed, .integer(at), .text(refundID)])
                guard connection.changes == 1 else { throw StoreError(.busy, "refund \(refundID) changed underneath; retry") }
                try connection.query(
                    "UPDATE payments SET refunded_minor = refunded_minor + ?, updated_at = ? WHERE id = ? AND refunded_minor + ? <= reserved_minor",
                    [.integer(amount), .integer(at), .text(refund.paymentID), .integer(amount)])
                if let providerRefundID { detail["provider_refund_id"] = providerRefundID }
                record = EventRecord(kind: .refund, detail: JSONText.object(detail))
                webhook = "order.refunded"
            case .failed(let reason):
                guard refund.status.canMove(to: .failed) else { return .unchanged(order, refund) }
                let wasCounted = refund.status == .succeeded
                try connection.query(
                    "UPDATE refunds SET status = 'failed', failure_reason = ?, finished_at = ?, updated_at = ? WHERE id = ? AND status = ?",
                    [.text(reason), .integer(at), .integer(at), .text(refundID), .text(refund.status.rawValue)])
                guard connection.changes == 1 else { throw StoreError(.busy, "refund \(refundID) changed underneath; retry") }
                try connection.query(
                    """
                    UPDATE payments SET reserved_minor = reserved_minor - ?, refunded_minor = refunded_minor - ?, updated_at = ?
                        WHERE id = ?
                    """,
                    [.integer(amount), .integer(wasCounted ? amount : 0), .integer(at), .text(refund.paymentID)])
                detail["reason"] = reason
                record = EventRecord(kind: .refundFailed, detail: JSONText.object(detail))
                webhook = "order.refund_failed"
            }
            guard connection.changes == 1 else { throw StoreError(.failed, "payment \(refund.paymentID) refused the refund's change") }
            let (updated, _) = try SQLLedger.settle(connection, order, record: record, at: at)
            guard let finished = try SQLLedger.refund(connection, where: "id = ?", [.text(refundID)]),
                let payment = try SQLLedger.payment(connection, where: "id = ?", [.text(refund.paymentID)])
            else { throw StoreError(.failed, "refund \(refundID) vanished") }
            try SQLStatements.enqueue(type: webhook, order: updated, payment: payment, refund: finished, at: at, connection)
            return .changed(updated, finished)
        }
    }

    public func refund(id: String) async throws -> StoredRefund? {
        try await withReading { try SQLLedger.refund($0.connection, where: "id = ?", [.text(id)]) }
    }

    public func refund(outRefundNo: String) async throws -> StoredRefund? {
        try await withReading { try SQLLedger.refund($0.connection, where: "out_refund_no = ?", [.text(outRefundNo)]) }
    }

    public func refunds(orderIDs: [String]) async throws -> [StoredRefund] {
        try await withReading { try SQLLedger.refunds($0.connection, orderIDs: orderIDs) }
    }

    public func pendingRefunds(createdBefore date: Date, limit: Int) async throws -> [StoredRefund] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(SQLLedger.refundColumns) FROM refunds WHERE status = 'pending' AND created_at <= ? ORDER BY created_at LIMIT ?",
                [.integer(SQLStatements.stamp(date)), .integer(Int64(limit))]
            ).map(StoredRefund.init(row:))
        }
    }

    public func unconfirmedRefunds(acceptedBefore date: Date, limit: Int) async throws -> [StoredRefund] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLLedger.refundColumns) FROM refunds WHERE status = 'succeeded' AND confirmed_at IS NULL AND finished_at <= ?
                    ORDER BY finished_at LIMIT ?
                """,
                [.integer(SQLStatements.stamp(date)), .integer(Int64(limit))]
            ).map(StoredRefund.init(row:))
        }
    }

    public func succeededRefunds(from: Date, until: Date) async throws -> [StoredRefund] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLLedger.refundColumns) FROM refunds WHERE status = 'succeeded' AND finished_at >= ? AND finished_at < ?
                    ORDER BY finished_at
                """,
                [.integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))]
            ).map(StoredRefund.init(row:))
        }
    }
}

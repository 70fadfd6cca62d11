public import Cashier
import CashierWire
public import Foundation

/// Agreements: one row per `external_no` (unique by provider), reserved with an insert that does
/// nothing when another request reserved it first, moved under the row's lock and only by
/// compare-and-set on its version, never out of a final status.
extension SQLOrderStore {
    public func reserveAgreement(_ agreement: NewAgreement, now: Date) async throws -> (agreement: StoredAgreement, reserved: Bool) {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            try connection.query(
                """
                INSERT INTO agreements (id, merchant, provider, method, external_no, payer, plan_id, description, period_unit, period_count,
                    currency, single_limit_minor, first_charge_at, status, version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?) ON CONFLICT (provider, external_no) DO NOTHING
                """,
                [
                    .text("agr_" + RandomText.alphanumeric(count: 24)), agreement.merchant.map { .text($0) } ?? .null,
                    .text(agreement.provider), .text(agreement.method), .text(agreement.externalNo),
                    agreement.payer.map { .text($0) } ?? .null, agreement.planID.map { .text($0) } ?? .null, .text(agreement.description),
                    .text(agreement.periodUnit.rawValue), .integer(Int64(agreement.periodCount)),
                    .text(agreement.singleLimit.currency.code),
                    .integer(agreement.singleLimit.minorUnits), agreement.firstChargeAt.map { .integer(SQLStatements.stamp($0)) } ?? .null,
                    .integer(at), .integer(at),
                ])
            let reserved = connection.changes == 1
            guard
                let found = try SQLOrderStoreRecurring.agreement(
                    connection, "provider = ? AND external_no = ?", [.text(agreement.provider), .text(agreement.externalNo)])
            else { throw StoreError(.busy, "agreement \(agreement.externalNo) changed underneath; retry") }
            return (found, reserved)
        }
    }

    public func moveAgreement(_ id: String, to progress: AgreementProgress, now: Date) async throws -> AgreementMoved {
        try await withTransaction { session in
            let connection = session.connection
            guard let current = try SQLOrderStoreRecurring.agreement(connection, "id = ?", [.text(id)], locking: true) else {
                throw StoreError(.notFound, "no agreement \(id)")
            }
            // A final status is final; a later word about an earlier state does not move it back.
            guard !current.status.isFinal, SQLOrderStoreRecurring.rank(progress.status) >= SQLOrderStoreRecurring.rank(current.status)
            else { return .unchanged(current) }
            guard
                current.status != progress.status || current.providerState != progress.providerState
                    || (progress.providerAgreementID != nil && current.providerAgreementID != progress.providerAgreementID)
                    || (progress.payer != nil && current.payer != progress.payer)
            else { return .unchanged(current) }
            let at = SQLStatements.stamp(now)
            try connection.query(
                """
                UPDATE agreements SET status = ?, provider_state = ?, provider_agreement_id = COALESCE(?, provider_agreement_id),
                    payer = COALESCE(?, payer), end_reason = ?, activated_at = COALESCE(activated_at, ?), ended_at = ?,
                    version = version + 1, updated_at = ?
                WHERE id = ? AND version = ?
                """,
                [
                    .text(progress.status.rawValue), .text(progress.providerState), progress.providerAgreementID.map { .text($0) } ?? .null,
                    progress.payer.map { .text($0) } ?? .null, progress.status.isFinal ? progress.reason.map { .text($0) } ?? .null : .null,
                    progress.status == .active ? .integer(at) : .null, progress.status.isFinal ? .integer(at) : .null, .integer(at),
                    .text(id), .integer(current.version),
                ])
            guard connection.changes == 1, let moved = try SQLOrderStoreRecurring.agreement(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.busy, "agreement \(id) changed underneath; retry")
            }
            if moved.status != current.status {
                try SQLOrderStoreRecurring.enqueue(
                    "agreement.\(moved.status.rawValue)", subject: moved.id, .init(agreement: AgreementJSON(moved)), at: at, connection)
            }
            // Ended: nothing is charged under it again.
            if moved.status.isFinal {
                let reason = "agreement \(moved.id) \(moved.status.rawValue)" + (moved.endReason.map { ": \($0)" } ?? "")
                for subscription in try connection.query(
                    "SELECT \(SubscriptionColumn.list) FROM subscriptions WHERE agreement_id = ? AND status <> 'canceled'\(connection.lockingClause)",
                    [.text(id)]
                ).map(StoredSubscription.init(row:)) {
                    try SQLOrderStoreRecurring.cancel(subscription, reason: reason, at: at, connection)
                }
            }
            return .changed(from: current, to: moved)
        }
    }

    public func agreement(id: String) async throws -> StoredAgreement? {
        try await withReading { try SQLOrderStoreRecurring.agreement($0.connection, "id = ?", [.text(id)]) }
    }

    public func agreement(provider: String, externalNo: String) async throws -> StoredAgreement? {
        try await withReading {
            try SQLOrderStoreRecurring.agreement($0.connection, "provider = ? AND external_no = ?", [.text(provider), .text(externalNo)])
        }
    }

    public func agreements(merchant: String?, limit: Int, offset: Int) async throws -> [StoredAgreement] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(AgreementColumn.list) FROM agreements \(merchant == nil ? "" : "WHERE merchant = ?")
                ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?
                """, (merchant.map { [SQLValue.text($0)] } ?? []) + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredAgreement.init(row:))
        }
    }

    public func pendingAgreements(before: Date, limit: Int) async throws -> [StoredAgreement] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(AgreementColumn.list) FROM agreements WHERE status = 'pending' AND updated_at < ? ORDER BY updated_at, id LIMIT ?",
                [.integer(SQLStatements.stamp(before)), .integer(Int64(limit))]
            ).map(StoredAgreement.init(row:))
        }
    }
}

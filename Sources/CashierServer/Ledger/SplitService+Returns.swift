import Cashier
import CashierCrypto
import CashierStore
import CashierWire
import Foundation

/// Reading an order's splits, returns, the provider's word on them and the query job.
extension SplitService {
    /// Order `orderID`'s splits and returns, and what is left to share.
    func page(orderID: String) async throws -> SplitsPage {
        guard let order = try await store.order(id: orderID) else { throw APIError.noOrder(orderID) }
        let splits = try await store.splits(orderID: orderID)
        let payment = try await order.settledPaymentID.asyncMap { try await store.payment(id: $0) } ?? nil
        let currency = order.total.currency
        func amount(_ minor: Int64) -> Amount { Amount(Money(minorUnits: minor, currency: currency)) }
        let paid = payment?.status == .succeeded ? payment?.amount.minorUnits ?? 0 : 0
        let refunded = payment?.reserved.minorUnits ?? 0
        let shared = payment?.sharedMinor ?? 0
        let finished = splits.contains { $0.finish && $0.status != .failed }
        return SplitsPage(
            order_id: orderID, paid: amount(paid), refunded: amount(refunded), shared: amount(shared),
            shareable: amount(finished || !order.profitSharing ? 0 : max(0, paid - refunded - shared)), finished: finished,
            data: splits.map(SplitJSON.init), returns: try await store.splitReturns(orderID: orderID).map(SplitReturnJSON.init))
    }

    /// Split `id` when these credentials may see its order (a merchant's key: its own orders'), else 404.
    func find(_ id: String, caller: Identity) async throws -> StoredSplit {
        guard let split = try await store.split(id: id), let order = try await store.order(id: split.orderID),
            caller.merchant == nil || order.merchant == caller.merchant
        else { throw APIError(status: 404, code: "not_found", message: "no split \(id) for these credentials") }
        return split
    }

    /// Takes `body.amount` back from one receiver of a finished split (WeChat Pay's 分账回退):
    /// reserved against that share first, so returns never take back more than it brought.
    /// - Throws: 409 `invalid_state` (the share did not arrive), 409 `return_too_large`, 409
    ///   `unsupported` (Alipay), 502 `return_failed`, 503 `provider_unavailable`.
    func createReturn(splitID: String, _ body: SplitReturnBody, caller: Identity, idempotencyKey: String?) async throws
        -> SplitReturnJSON
    {
        let split = try await find(splitID, caller: caller)
        guard let provider = PaymentProvider(rawValue: split.provider), let adapter = ledger.adapters.splitting(provider) else {
            throw APIError(status: 409, code: "unsupported", message: "\(split.provider) is not configured on this server")
        }
        guard adapter.takesReturns else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "\(ReceiverJSON.apiProvider(split.provider)) takes shares back only with a refund (Alipay's "
                    + "refund_royalty_parameters), which Cashier does not send yet: nothing was returned")
        }
        guard body.amount.value > 0 else { throw RequestProblem("amount must be more than zero (in fen)") }
        let description = try Self.text(body.description, "description") ?? ""
        let receiver = try await findReceiver(body.receiver, caller: caller)
        let number =
            idempotencyKey.map { "B" + Hex.encode(DigestAlgorithm.sha256.hash("return\n" + split.id + "\n" + $0)).prefix(31) }
            ?? "B" + RandomText.alphanumeric(count: 31)
        let reserved: (splitReturn: StoredSplitReturn, reserved: Bool)
        do {
            reserved = try await store.reserveSplitReturn(
                NewSplitReturn(
                    id: "sret_" + RandomText.alphanumeric(count: 24), splitID: split.id, outReturnNo: number, account: receiver.account,
                    amountMinor: body.amount.value, description: description),
                now: clock.now())
        } catch let error as StoreError where error.code == .limitExceeded {
            throw APIError(status: 409, code: "return_too_large", message: error.message)
        } catch let error as StoreError where error.code == .conflict {
            throw APIError(status: 409, code: "idempotency_conflict", message: error.message)
        }
        guard reserved.splitReturn.status == .pending else { return SplitReturnJSON(reserved.splitReturn) }
        let progress: SplitReturnProgress
        do {
            progress = try await adapter.sendSplitReturn(reserved.splitReturn, of: split)
        } catch let error as PaymentError where error.providerCode == "UNSUPPORTED" {
            _ = try await store.moveSplitReturn(
                reserved.splitReturn.id, to: SplitReturnProgress(status: .failed, providerState: "UNSUPPORTED", providerReturnID: nil),
                now: clock.now())
            throw APIError(status: 409, code: "unsupported", message: error.providerMessage ?? error.message)
        } catch let error as PaymentError where error.code == .providerRejected && Self.isRefusal(error.providerCode) {
            progress = SplitReturnProgress(
                status: .failed, providerState: "REFUSED", providerReturnID: nil,
                failureReason: "\(error.providerCode ?? ""): \(error.providerMessage ?? error.message)")
        } catch {
            throw APIError(
                status: 503, code: "provider_unavailable",
                message: "the provider did not answer; return \(reserved.splitReturn.id) stays reserved and Cashier asks about it")
        }
        let moved = try await store.moveSplitReturn(reserved.splitReturn.id, to: progress, now: clock.now())
        if moved.status == .failed {
            throw APIError(
                status: 502, code: "return_failed",
                message: "the provider refused return \(moved.id): \(moved.failureReason ?? "no reason given"); nothing came back")
        }
        return SplitReturnJSON(moved)
    }

    // MARK: The provider's word

    /// A verified split notification: recorded when it names a split of this server at the
    /// adapter's merchant; refused otherwise (and nothing changes).
    func apply(_ report: SplitReport) async -> NotificationOutcome {
        guard let adapter = ledger.adapters.splitting(report.provider), adapter.splitMerchantID == report.merchantID else {
            return .refused
        }
        do {
            guard let split = try await store.split(provider: report.provider.rawValue, outOrderNo: report.outOrderNo) else {
                return .refused
            }
            try await move(split, report.progress)
            return .acknowledged
        } catch {
            return .retry
        }
    }

    /// The job: asks the provider about every split and return not ended and unchanged for a
    /// minute. A split it does not know after ``unsentAfter`` never reached it, and fails.
    /// - Returns: how many changed.
    @discardableResult
    func reconcile() async throws -> Int {
        let now = clock.now()
        var changed = 0
        for split in try await store.unfinishedSplits(before: now.addingTimeInterval(-Self.queryAfter), limit: 200) {
            guard !Task.isCancelled else { break }
            guard let provider = PaymentProvider(rawValue: split.provider), let adapter = ledger.adapters.splitting(provider) else {
                continue
            }
            let progress: SplitProgress?
            do {
                progress = try await adapter.splitProgress(split)
            } catch {
                continue  // asked again next run
            }
            let word =
                progress
                ?? (now.timeIntervalSince(split.createdAt) >= Self.unsentAfter
                    ? SplitProgress(
                        status: .failed, providerState: "NOT_FOUND", providerOrderID: nil, failureReason: "the provider never received it")
                    : nil)
            guard let word, case .changed = try await move(split, word) else { continue }
            changed += 1
        }
        for pending in try await store.pendingSplitReturns(before: now.addingTimeInterval(-Self.queryAfter), limit: 200) {
            guard !Task.isCancelled, let split = try await store.split(id: pending.splitID),
                let provider = PaymentProvider(rawValue: split.provider), let adapter = ledger.adapters.splitting(provider),
                let progress = try? await adapter.splitReturnProgress(pending, of: split), progress.status.isFinal
            else { continue }
            _ = try await store.moveSplitReturn(pending.id, to: progress, now: clock.now())
            changed += 1
        }
        return changed
    }
}

extension Optional {
    /// The wrapped value transformed by an async function, or `nil`.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}

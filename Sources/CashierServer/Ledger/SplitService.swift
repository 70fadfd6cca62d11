import Cashier
import CashierCrypto
import CashierStore
import CashierWire
import Foundation

/// Profit sharing (WeChat Pay's 分账, Alipay's 分账): shares of a paid order to receivers added
/// before, reserved against the order's payment under the order's lock — the lock refunds take
/// too, so splits and refunds together never move more than was paid, on any number of instances
/// — before the provider is asked, under an `out_order_no` that comes from the `Idempotency-Key`
/// (a retry finds the same split and asks for the same request, which the provider never makes
/// twice). Moved by the provider's answers, its notifications (Alipay's) and the query job, by
/// compare-and-set, never out of a final status.
struct SplitService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// The API's provider names and the providers they stand for.
    static let providers: [String: PaymentProvider] = ["wechat": .wechatV3, "alipay": .alipay]
    /// Alipay's application gateway (应用网关), where its message service sends split results: set
    /// it in the Alipay open platform console to `{public_base_url}/notify/alipay/gateway`.
    static let alipayGatewayPath = "/notify/alipay/gateway"
    /// How long a split waits unchanged before the job asks the provider about it.
    static let queryAfter: TimeInterval = 60
    /// How long a split the provider does not know may stay pending before it counts as never sent.
    static let unsentAfter: TimeInterval = 15 * 60
    /// Receivers in one request: WeChat Pay's 50 (Alipay's asynchronous mode takes as many).
    static let sharesPerRequest = 50
    /// Requests on one order: WeChat Pay's 50 (Alipay's asynchronous mode takes 300).
    static let requestsPerOrder: [PaymentProvider: Int] = [.wechatV3: 50, .alipay: 300]

    /// Splits order `orderID` as `body` asks.
    /// - Returns: the split, usually `processing` (the provider moves the shares asynchronously).
    /// - Throws: 409 `unsupported` (the order's provider does not share through Cashier), 409
    ///   `invalid_state` (not paid, not placed for sharing, sharing finished), 409 `split_too_large`
    ///   (more than is left), 409 `idempotency_conflict`, 502 `split_failed` (the provider refused:
    ///   nothing moved), 503 `provider_unavailable` (the split stays reserved and is asked about).
    func create(orderID: String, _ body: SplitBody, caller: Identity, idempotencyKey: String?) async throws -> SplitJSON {
        let (order, payment, adapter) = try await sharing(orderID, caller: caller)
        guard (1...Self.sharesPerRequest).contains(body.receivers.count) else {
            throw RequestProblem("receivers must list 1 to \(Self.sharesPerRequest) shares")
        }
        let description = try Self.text(body.description, "description") ?? "分账"
        var shares: [StoredSplit.Share] = []
        for share in body.receivers {
            guard share.amount.value > 0 else { throw RequestProblem("receivers[].amount must be more than zero (in fen)") }
            let receiver = try await activeReceiver(share, provider: payment.provider, caller: caller)
            shares.append(
                StoredSplit.Share(
                    type: receiver.type, account: receiver.account, amountMinor: share.amount.value,
                    description: try Self.text(share.description, "receivers[].description") ?? description))
        }
        guard Set(shares.map { $0.type + "\n" + $0.account }).count == shares.count else {
            throw RequestProblem("receivers must name each receiver once")
        }
        return try await reserveAndSend(
            order: order, payment: payment, adapter: adapter, shares: shares, finish: body.finish == true, description: description,
            idempotencyKey: idempotencyKey, caller: caller)
    }

    /// Ends order `orderID`'s sharing: what is left unfreezes to the merchant (WeChat Pay's
    /// `orders/unfreeze`, Alipay's settle with `royalty_finish`).
    func finish(orderID: String, _ body: SplitFinishBody, caller: Identity, idempotencyKey: String?) async throws -> SplitJSON {
        let (order, payment, adapter) = try await sharing(orderID, caller: caller)
        let description = try Self.text(body.description, "description") ?? "解冻全部剩余资金"
        return try await reserveAndSend(
            order: order, payment: payment, adapter: adapter, shares: [], finish: true, description: description,
            idempotencyKey: idempotencyKey ?? "finish", caller: caller)
    }

    /// The order, its paying payment and the adapter its splits go through, when the caller may share it.
    func sharing(_ orderID: String, caller: Identity) async throws -> (StoredOrder, StoredPayment, any Splitting) {
        guard let order = try await store.order(id: orderID) else { throw APIError.noOrder(orderID) }
        guard order.profitSharing else {
            throw APIError.invalidState(
                "order \(orderID) was not placed for profit sharing: create orders to be split with \"profit_sharing\": true")
        }
        guard let paymentID = order.settledPaymentID, let payment = try await store.payment(id: paymentID), payment.status == .succeeded
        else { throw APIError.invalidState("order \(orderID) is \(order.status.rawValue): nothing was paid to share") }
        guard order.merchant == nil else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "profit sharing for a service provider's sub-merchants is not supported yet: only the direct merchant's orders "
                    + "are shared")
        }
        guard let adapter = ledger.adapters.splitting(payment.provider) else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "\(payment.provider.rawValue) payments are not shared through Cashier: profit sharing is WeChat Pay API v3's "
                    + "and Alipay's")
        }
        return (order, payment, adapter)
    }

    private func reserveAndSend(
        order: StoredOrder, payment: StoredPayment, adapter: any Splitting, shares: [StoredSplit.Share], finish: Bool,
        description: String, idempotencyKey: String?, caller: Identity
    ) async throws -> SplitJSON {
        let earlier = try await store.splits(orderID: order.id)
        let limit = Self.requestsPerOrder[payment.provider] ?? 50
        let number =
            idempotencyKey.map { "S" + Hex.encode(DigestAlgorithm.sha256.hash("split\n" + order.id + "\n" + $0)).prefix(31) }
            ?? "S" + RandomText.alphanumeric(count: 31)
        if !earlier.contains(where: { $0.outOrderNo == number }), earlier.filter({ $0.status != .failed }).count >= limit {
            throw APIError.invalidState("order \(order.id) has had \(limit) split requests, the provider's limit for one order")
        }
        let wanted = NewSplit(
            id: "spl_" + RandomText.alphanumeric(count: 24), orderID: order.id, merchant: caller.merchant, outOrderNo: number,
            shares: shares, finish: finish, description: description)
        let reservation: SplitReservation
        do {
            reservation = try await store.reserveSplit(wanted, now: clock.now())
        } catch let error as StoreError where error.code == .limitExceeded {
            throw APIError(status: 409, code: "split_too_large", message: error.message)
        }
        let split = reservation.split
        guard split.isSameRequest(as: wanted) else {
            throw APIError(
                status: 409, code: "idempotency_conflict", message: "this Idempotency-Key made split \(split.id) of other shares")
        }
        if case .reserved = reservation { ledger.metrics.increment("cashier_splits_total", ["status": "reserved"]) }
        guard split.status == .pending else { return SplitJSON(split) }
        let sent = try await send(split, via: adapter)
        switch sent.status {
        case .failed:
            throw APIError(
                status: 502, code: "split_failed",
                message: "the provider refused split \(sent.id): \(sent.failureReason ?? "no reason given"); nothing was shared")
        case .pending:
            throw APIError(
                status: 503, code: "provider_unavailable",
                message: "the provider did not answer; split \(sent.id) stays reserved under \(sent.outOrderNo) and Cashier asks "
                    + "about it until it is known. Retrying with the same Idempotency-Key is safe; a retry without one is another split")
        default: return SplitJSON(sent)
        }
    }

    /// Asks the provider for a reserved split and records its answer.
    /// - Returns: the split as it is now; still `pending` when the answer was lost.
    func send(_ split: StoredSplit, via adapter: any Splitting) async throws -> StoredSplit {
        let progress: SplitProgress
        do {
            progress = try await adapter.sendSplit(split)
        } catch let error as PaymentError where error.code == .providerRejected && Self.isRefusal(error.providerCode) {
            progress = SplitProgress(
                status: .failed, providerState: "REFUSED", providerOrderID: nil,
                failureReason: "\(error.providerCode ?? ""): \(error.providerMessage ?? error.message)")
        } catch let error as PaymentError where error.code == .invalidRequest {
            progress = SplitProgress(status: .failed, providerState: "REFUSED", providerOrderID: nil, failureReason: error.message)
        } catch {
            return split  // unknown outcome: stays reserved; the job asks the provider, a retry sends the same number
        }
        return try await move(split, progress).split
    }

    /// The providers' answers that say the request was not made (any other error may hide one that was).
    static func isRefusal(_ code: String?) -> Bool {
        guard let code else { return false }
        if code.hasPrefix("ACQ.") { return code != "ACQ.SYSTEM_ERROR" }  // Alipay's business errors
        return ["PARAM_ERROR", "INVALID_REQUEST", "NO_AUTH", "NOT_ENOUGH", "RULE_LIMIT", "RECEIVER_INVALID", "UNSUPPORTED"].contains(code)
            || code.hasPrefix("isv.")
    }

    /// Records `progress`, counting an end.
    @discardableResult
    func move(_ split: StoredSplit, _ progress: SplitProgress) async throws -> SplitMoved {
        let moved = try await store.moveSplit(split.id, to: progress, now: clock.now())
        if case .changed(let before, let after) = moved, before.status != after.status, after.status.isFinal {
            ledger.metrics.increment("cashier_splits_total", ["status": after.status.rawValue])
        }
        return moved
    }

    /// Text of at most 80 characters (WeChat Pay's `description`), `nil` when absent.
    static func text(_ value: String?, _ name: String) throws -> String? {
        guard let value else { return nil }
        guard (1...80).contains(value.unicodeScalars.count) else { throw RequestProblem("\(name) must be 1 to 80 characters") }
        return value
    }
}

extension SplitMoved {
    /// The split after the move.
    var split: StoredSplit {
        switch self {
        case .changed(_, let to): to
        case .unchanged(let split): split
        }
    }
}

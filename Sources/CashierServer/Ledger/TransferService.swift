import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Transfers out to a person (WeChat Pay's 商家转账): reserved here under their `out_bill_no`
/// before the provider is asked — the number comes from the `Idempotency-Key`, so a retry, on
/// any instance, finds the same record and asks the provider for the same bill, which it never
/// makes twice — then moved by the provider's answers, its `MCHTRANSFER.BILL.FINISHED`
/// notifications and the query job, by compare-and-set, never out of a final status.
struct TransferService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// The notify path of transfer notifications (the direct merchant's).
    static let notifyPath = "/notify/wechat/v3/transfers"
    /// How long a transfer the provider does not know may stay pending before it counts as never sent.
    static let unsentAfter: TimeInterval = 15 * 60
    /// What one transfer may be, in fen: WeChat's floor of 0.1 yuan to 100,000 yuan (each scene's
    /// limits, set in the merchant platform, may be narrower: WeChat refuses past them).
    static let amounts: ClosedRange<Int64> = 10...10_000_000
    /// What one Alipay transfer to a person may be, in fen: 0.1 to 50,000 yuan.
    static let alipayAmounts: ClosedRange<Int64> = 10...5_000_000
    /// The API's provider names and the providers they stand for.
    static let providers: [String: PaymentProvider] = ["wechat": .wechatV3, "alipay": .alipay]
    /// How long a transfer waits unchanged before the job asks the provider about it.
    static let queryAfter: TimeInterval = 60

    /// Transfers `body`'s amount to its payee.
    /// - Returns: the transfer, usually `waiting_for_payee` with its `package_info`.
    /// - Throws: 409 `unsupported` when WeChat Pay v3 is not configured or the key is a sub-merchant's;
    ///   409 `insufficient_funds` when the merchant's account cannot pay it;
    ///   409 `idempotency_conflict` for another body under the same key; 502 `transfer_failed` when the
    ///   provider refused; 503 `provider_unavailable` when it did not answer (the transfer stays reserved).
    func create(_ body: TransferBody, caller: Identity, idempotencyKey: String?) async throws -> TransferJSON {
        guard caller.merchant == nil else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "transfers are paid from the platform's own WeChat Pay account: make them with the platform's secret key")
        }
        guard let provider = Self.providers[body.provider] else {
            throw RequestProblem.unprocessable("provider must be \"wechat\" or \"alipay\"")
        }
        guard let adapter = ledger.adapters.transferring(provider) else {
            throw APIError(
                status: 409, code: "unsupported",
                message: provider == .alipay
                    ? "Alipay is not configured on this server" : "WeChat Pay API v3 is not configured on this server")
        }
        guard body.currency == "CNY" else { throw RequestProblem.unprocessable("currency must be CNY: transfers are in fen") }
        try RequestProblem.check(body.amount.value, in: Self.amounts, "amount", unit: " fen")
        if provider == .alipay, !Self.alipayAmounts.contains(body.amount.value) {
            throw RequestProblem.unprocessable("an Alipay transfer to a person is at most 50000 yuan (5000000 fen)")
        }
        guard !body.openid.isEmpty, body.openid.utf8.count <= 128 else { throw RequestProblem("openid must be 1 to 128 bytes") }
        guard (1...32).contains(body.remark.unicodeScalars.count) else { throw RequestProblem("remark must be 1 to 32 characters") }
        let scene = body.scene ?? "1000"
        guard (1...16).contains(scene.unicodeScalars.count) else { throw RequestProblem("scene must be 1 to 16 characters") }
        let userName = body.user_name.flatMap { $0.isEmpty ? nil : $0 }
        // RSA-OAEP with a 2048-bit key takes at most 214 bytes: 32 characters of any script fit.
        guard (userName?.unicodeScalars.count ?? 0) <= 32 else { throw RequestProblem("user_name must be at most 32 characters") }
        if provider == .wechatV3, body.amount.value >= 200_000, userName == nil {
            throw RequestProblem.unprocessable("user_name is required from 2000 yuan (200000 fen): WeChat Pay checks the payee's real name")
        }
        guard (body.perception?.unicodeScalars.count ?? 0) <= 32 else { throw RequestProblem("perception must be at most 32 characters") }
        // Lengths in characters (Unicode code points), as the document's maxLength counts them.
        let reports = body.report_infos.map { $0.map { (type: $0.info_type, content: $0.info_content) } } ?? [("转账说明", body.remark)]
        guard
            !reports.isEmpty,
            reports.allSatisfy({ (1...32).contains($0.type.unicodeScalars.count) && (1...64).contains($0.content.unicodeScalars.count) })
        else {
            throw RequestProblem("report_infos must each have an info_type of 1 to 32 characters and an info_content of 1 to 64")
        }
        let number =
            idempotencyKey.map { "T" + Hex.encode(DigestAlgorithm.sha256.hash("transfer\n" + $0)).prefix(31) }
            ?? "T" + RandomText.alphanumeric(count: 31)
        let wanted = NewTransfer(
            merchant: caller.merchant, provider: adapter.provider.rawValue, outBillNo: number, appID: adapter.transferAppID,
            openID: body.openid, amount: Money(minorUnits: body.amount.value, currency: .cny), remark: body.remark, scene: scene,
            userName: userName)
        let (transfer, reserved) = try await store.reserveTransfer(wanted, now: clock.now())
        guard transfer.isSameRequest(as: wanted) else {
            throw APIError(
                status: 409, code: "idempotency_conflict",
                message: "this Idempotency-Key made transfer \(transfer.id) of another payee, amount or remark")
        }
        if reserved { ledger.metrics.increment("cashier_transfers_total", ["status": "reserved"]) }
        // Sent again while nothing is known, or when the query found it waiting but (as WeChat's
        // query does not give one) without the package the payee needs: WeChat answers the same
        // bill with a fresh package_info.
        guard transfer.status == .pending || (transfer.status == .waitingForPayee && transfer.packageInfo == nil) else {
            return json(transfer)
        }
        let sent = try await send(transfer, via: adapter, reports: reports, perception: body.perception)
        switch sent.status {
        case .failed
        where sent.failureReason?.hasPrefix("NOT_ENOUGH") == true || sent.failureReason?.hasPrefix("BALANCE_IS_NOT_ENOUGH") == true:
            throw APIError(
                status: 409, code: "insufficient_funds",
                message: "the merchant's WeChat Pay account cannot pay transfer \(sent.id) (NOT_ENOUGH); nothing was transferred")
        case .failed:
            throw APIError(
                status: 502, code: "transfer_failed",
                message: "the provider refused transfer \(sent.id): \(sent.failureReason ?? "no reason given"); nothing was transferred")
        case .pending where sent.providerState == nil:
            throw APIError(
                status: 503, code: "provider_unavailable",
                message: "the provider did not answer; transfer \(sent.id) stays reserved under \(sent.outBillNo) and Cashier asks "
                    + "about it until it is known. Retrying with the same Idempotency-Key is safe; a retry without one is another transfer")
        default: return json(sent)
        }
    }

    /// Asks the provider for a reserved transfer and records its answer.
    /// - Returns: the transfer as it is now; still `pending` (with no provider state) when the answer was lost.
    func send(_ transfer: StoredTransfer, via adapter: any Transferring, reports: [(type: String, content: String)], perception: String?)
        async throws -> StoredTransfer
    {
        let progress: TransferProgress
        do {
            progress = try await adapter.sendTransfer(
                transfer, notifyURL: ledger.publicBase + Self.notifyPath, reports: reports, perception: perception)
        } catch let error as PaymentError where error.code == .providerRejected && Self.refusals.contains(error.providerCode ?? "") {
            progress = TransferProgress(
                status: .failed, providerState: "REFUSED", providerBillNo: nil,
                failureReason: "\(error.providerCode ?? ""): \(error.providerMessage ?? "")")
        } catch let error as PaymentError where error.code == .invalidRequest {
            progress = TransferProgress(status: .failed, providerState: "REFUSED", providerBillNo: nil, failureReason: error.message)
        } catch {
            return transfer  // unknown outcome: stays reserved; the job asks the provider, a retry sends the same number
        }
        return try await move(transfer, progress).transfer
    }

    /// WeChat's answers that say the bill was not made (any other error may hide one that was).
    static let refusals: Set<String> = [
        "PARAM_ERROR", "INVALID_REQUEST", "NOT_ENOUGH", "NO_AUTH", "ACCOUNT_ERROR", "QUOTA_EXCEED",
        // Alipay's sub_codes for a transfer it did not make.
        "BALANCE_IS_NOT_ENOUGH", "PAYEE_NOT_EXIST", "PAYEE_USER_INFO_ERROR", "PAYMENT_INFO_INCONSISTENCY", "EXCEED_LIMIT_SM_AMOUNT",
        "EXCEED_LIMIT_SM_MIN_AMOUNT", "PRODUCT_NOT_SIGNED", "INVALID_PARAMETER",
    ]

    /// Records `progress`, counting an end.
    @discardableResult
    func move(_ transfer: StoredTransfer, _ progress: TransferProgress) async throws -> TransferMoved {
        let moved = try await store.moveTransfer(transfer.id, to: progress, now: clock.now())
        if case .changed(let before, let after) = moved, before.status != after.status, after.status.isFinal {
            ledger.metrics.increment("cashier_transfers_total", ["status": after.status.rawValue])
        }
        return moved
    }

    // MARK: Reading and cancelling

    /// Transfer `id` when these credentials may see it (a merchant's key: its own), else 404.
    func find(_ id: String, caller: Identity) async throws -> StoredTransfer {
        guard let transfer = try await store.transfer(id: id), caller.merchant == nil || transfer.merchant == caller.merchant else {
            throw APIError(status: 404, code: "not_found", message: "no transfer \(id) for these credentials")
        }
        return transfer
    }

    func view(_ id: String, caller: Identity) async throws -> TransferJSON {
        try json(try await find(id, caller: caller))
    }

    /// Transfers these credentials may see, newest first.
    func list(caller: Identity, limit: Int, offset: Int) async throws -> RecordPage<TransferJSON> {
        let found = try await store.transfers(merchant: caller.merchant, limit: limit + 1, offset: offset)
        return RecordPage(fetched: found, limit: limit, json)
    }

    /// Cancels transfer `id` before its payee confirms it.
    /// - Throws: 409 `invalid_state` once it succeeded or failed, or the provider refuses (the payee confirmed).
    func cancel(_ id: String, caller: Identity) async throws -> TransferJSON {
        let transfer = try await find(id, caller: caller)
        if transfer.status == .cancelled { return json(transfer) }
        guard !transfer.status.isFinal else {
            throw APIError.invalidState("transfer \(id) has \(transfer.status.rawValue); it cannot be cancelled")
        }
        guard let provider = PaymentProvider(rawValue: transfer.provider), let adapter = ledger.adapters.transferring(provider) else {
            throw APIError(status: 409, code: "unsupported", message: "\(transfer.provider) is not configured on this server")
        }
        let progress: TransferProgress
        do {
            progress = try await adapter.cancelTransfer(transfer)
        } catch let error as PaymentError where error.providerCode == "UNSUPPORTED" {
            throw APIError(status: 409, code: "unsupported", message: "\(transfer.provider) transfers cannot be cancelled")
        } catch let error as PaymentError where error.code == .providerRejected {
            throw APIError.invalidState(
                "the provider would not cancel transfer \(id) (\(error.providerCode ?? "")): its payee may have confirmed it")
        } catch {
            throw APIError(status: 503, code: "provider_unavailable", message: "the provider did not answer; ask again")
        }
        return json(try await move(transfer, progress).transfer)
    }

    // MARK: The provider's word

    /// A verified transfer notification: recorded when it names a transfer of this server, at the
    /// adapter's merchant, for the amount reserved; refused otherwise (and nothing changes).
    func apply(_ report: TransferReport) async -> NotificationOutcome {
        guard let adapter = ledger.adapters.transferring(report.provider), adapter.transferMerchantID == report.merchantID else {
            return .refused
        }
        do {
            guard let transfer = try await store.transfer(provider: report.provider.rawValue, outBillNo: report.outBillNo),
                transfer.amount.minorUnits == report.amountMinor
            else { return .refused }
            try await move(transfer, report.progress)
            return .acknowledged
        } catch {
            return .retry
        }
    }

    /// The job: asks the provider about every transfer not ended and unchanged for a minute. One
    /// it does not know after ``unsentAfter`` never reached it, and fails.
    /// - Returns: how many changed.
    @discardableResult
    func reconcile() async throws -> Int {
        let now = clock.now()
        var changed = 0
        for transfer in try await store.unfinishedTransfers(before: now.addingTimeInterval(-Self.queryAfter), limit: 200) {
            guard !Task.isCancelled else { break }
            guard let provider = PaymentProvider(rawValue: transfer.provider), let adapter = ledger.adapters.transferring(provider) else {
                continue
            }
            let progress: TransferProgress?
            do {
                progress = try await adapter.transferProgress(transfer)
            } catch {
                continue  // asked again next run
            }
            let word =
                progress
                ?? (now.timeIntervalSince(transfer.createdAt) >= Self.unsentAfter
                    ? TransferProgress(
                        status: .failed, providerState: "NOT_FOUND", providerBillNo: nil,
                        failureReason: "the provider never received it")
                    : nil)
            guard let word, case .changed = try await move(transfer, word) else { continue }
            changed += 1
        }
        return changed
    }

    func json(_ transfer: StoredTransfer) -> TransferJSON {
        TransferJSON(
            transfer,
            mchID: transfer.provider == PaymentProvider.wechatV3.rawValue ? ledger.adapters.transferring?.transferMerchantID : nil)
    }
}

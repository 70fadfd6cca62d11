import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// The providers' notify endpoints: verified by the provider's adapter (signature, then
/// merchant), checked against the stored payment (amount, currency), recorded once, logged —
/// all before the provider hears back.
extension MerchantAPI {
    func notification(_ request: HTTPServerRequest, provider: PaymentProvider, merchant: String? = nil) async -> HTTPServerResponse {
        guard let adapter = notificationAdapter(provider, merchant: merchant) else { return Self.unconfigured(provider, merchant) }
        return await respond(to: try? await adapter.notification(request), adapter, provider: provider, body: request.body)
    }

    /// What a verified notification (`nil`: one that did not verify, which touches nothing) comes
    /// to, recorded and answered in the provider's words.
    private func respond(
        to verified: ProviderNotification?, _ adapter: any PaymentAdapter, provider: PaymentProvider, body: [UInt8]
    ) async -> HTTPServerResponse {
        switch verified {
        case nil: reply(adapter, .unverified, provider: provider, refund: false)
        case .payment(let report)?:
            reply(adapter, await record(report, wallet: provider.wallet, body: body), provider: provider, refund: false)
        case .refund(let report)?:
            reply(adapter, await record(report, wallet: provider.wallet, adapter: adapter, body: body), provider: provider, refund: true)
        }
    }

    /// How a notification is answered, decided on the worker thread that read it, where it is
    /// verified when its keys are held here (WeChat Pay, Alipay): one that does not verify is
    /// answered at once; a reported success goes straight to the store's writer, whose finisher
    /// thread answers once it is committed — a repeat, the usual case, needs nothing more; anything else
    /// (a refund, another state, a first success with attempts to close) is finished in a task,
    /// from what was verified. An adapter that must wait to verify is answered by
    /// ``notification(_:provider:merchant:)``.
    func notificationAnswer(_ request: HTTPServerRequest, provider: PaymentProvider, merchant: String? = nil) -> HTTPServer.Answer {
        guard let adapter = notificationAdapter(provider, merchant: merchant), let verified = adapter.notificationNow(request) else {
            return .later { await self.notification(request, provider: provider, merchant: merchant) }
        }
        guard case .success(let notification) = verified else {
            return .now(reply(adapter, .unverified, provider: provider, refund: false))
        }
        guard case .payment(let report) = notification, let success = paid(report, wallet: provider.wallet, body: request.body) else {
            return .later { await self.respond(to: notification, adapter, provider: provider, body: request.body) }
        }
        return .handedOff { answer in
            self.store.recordPayment(
                success.outcome, wallet: provider.wallet, outTradeNo: report.outTradeNo, accept: success.accept, record: success.record,
                duplicate: success.duplicate, now: self.clock.now()
            ) { result in
                if let outcome = Self.finishedAtOnce(result) {
                    return answer(self.reply(adapter, outcome, provider: provider, refund: false))
                }
                Task {
                    let outcome = await self.finishRecording(result, report, wallet: provider.wallet, bodySHA256: success.record.bodySHA256)
                    answer(self.reply(adapter, outcome, provider: provider, refund: false))
                }
            }
        }
    }

    private func notificationAdapter(_ provider: PaymentProvider, merchant: String?) -> (any PaymentAdapter)? {
        merchant.map { adapters.adapter(for: provider, merchant: $0) } ?? (try? adapters.adapter(for: provider))
    }

    private static func unconfigured(_ provider: PaymentProvider, _ merchant: String?) -> HTTPServerResponse {
        .error(
            status: 404, code: "not_found",
            message: "\(provider.rawValue) is not configured on this server" + (merchant.map { " for merchant \($0)" } ?? ""))
    }

    /// The provider's answer to what became of its notification, counted for `/metrics`.
    private func reply(_ adapter: any PaymentAdapter, _ outcome: NotificationOutcome, provider: PaymentProvider, refund: Bool)
        -> HTTPServerResponse
    {
        metrics.increment(
            "cashier_notifications_total", ["provider": Self.metricName(provider, refund: refund), "outcome": outcome.rawValue])
        return adapter.reply(to: outcome)
    }

    /// The label `/metrics` has always used for each provider's notifications.
    static func metricName(_ provider: PaymentProvider, refund: Bool) -> String {
        let base =
            switch provider {
            case .wechatV2: "wechat"
            case .wechatV3: "wechat_v3"
            case .alipay: "alipay"
            case .applePay: "applepay"
            }
        return refund ? base + "_refund" : base
    }

    /// What the store records of a reported success: the outcome, the provider's checks run on
    /// the attempt it finds (a refusal writes nothing), and the log line for a change or a repeat.
    struct ReportedSuccess: Sendable {
        let outcome: PaymentOutcome
        let accept: @Sendable (StoredPayment) throws -> Void
        let record: EventRecord
        let duplicate: EventRecord
    }

    /// The success `report` reports, or `nil` when it reports none.
    private func paid(_ report: PaymentReport, wallet: PaymentMethod.Wallet, body: [UInt8]) -> ReportedSuccess? {
        guard case .paid(let amount, let transactionID) = report.state else { return nil }
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(body))
        let detail = Self.detail(report.fields)
        let check = report.check
        return ReportedSuccess(
            outcome: .succeeded(transactionID: transactionID, amount: amount),
            accept: { payment in
                do { try Self.accept(payment, amount: amount, check: check) } catch let error as PaymentError {
                    throw Refusal(payment: payment, error: error)
                }
            },
            record: EventRecord(kind: .notification, detail: detail, bodySHA256: bodyHash),
            duplicate: EventRecord(kind: .notificationDuplicate, detail: detail, bodySHA256: bodyHash))
    }

    /// A verified payment notification: the attempt found by its trade number at the wallet, the
    /// provider's checks run against it, the success recorded once (or its duplicate logged).
    /// A success takes one transaction: the attempt is found, checked and recorded together.
    func record(_ report: PaymentReport, wallet: PaymentMethod.Wallet, body: [UInt8]) async -> NotificationOutcome {
        if let success = paid(report, wallet: wallet, body: body) {
            let result: Result<PaymentRecorded?, any Error>
            do {
                result = .success(
                    try await store.recordPayment(
                        success.outcome, wallet: wallet, outTradeNo: report.outTradeNo, accept: success.accept, record: success.record,
                        duplicate: success.duplicate, now: clock.now()))
            } catch {
                result = .failure(error)
            }
            return await finishRecording(result, report, wallet: wallet, bodySHA256: success.record.bodySHA256)
        }
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(body))
        do {
            guard let payment = try await store.payment(wallet: wallet, outTradeNo: report.outTradeNo) else {
                return try await refuseUnknown(report, bodySHA256: bodyHash)
            }
            try await store.append(
                EventRecord(kind: .notification, detail: Self.detail(report.fields), bodySHA256: bodyHash), to: payment.orderID,
                now: clock.now())
            return .acknowledged
        } catch {
            return .retry
        }
    }

    /// What a recorded success comes to when nothing is left to do: a repeat, or a change needing
    /// no follow-up, is acknowledged (it is on disk); a failure other than a refused check is
    /// answered "retry". `nil`: ``finishRecording(_:_:wallet:bodySHA256:)`` has more to do.
    static func finishedAtOnce(_ result: Result<PaymentRecorded?, any Error>) -> NotificationOutcome? {
        switch result {
        case .success(.unchanged?), .success(.updated?): .acknowledged
        case .failure(let error) where !(error is Refusal): .retry
        default: nil
        }
    }

    /// The rest of a recorded success: a first one closes the order's other attempts (only then
    /// is it acknowledged), a refused check is logged, and a number no attempt has is refused.
    func finishRecording(
        _ result: Result<PaymentRecorded?, any Error>, _ report: PaymentReport, wallet: PaymentMethod.Wallet, bodySHA256: String?
    )
        async -> NotificationOutcome
    {
        if let outcome = Self.finishedAtOnce(result) { return outcome }
        do {
            switch result {
            case .success(let found?):
                try await afterSuccess(found)
                return .acknowledged  // only now: the change is on disk
            case .success(nil): return try await refuseUnknown(report, bodySHA256: bodySHA256)
            case .failure(let error):
                guard let refusal = error as? Refusal else { return .retry }
                try await refuse(refusal.payment, refusal.error, bodySHA256: bodySHA256)
                return .refused
            }
        } catch {
            return .retry
        }
    }

    /// No attempt of ours has the report's number: logged against the order if one has it, refused.
    private func refuseUnknown(_ report: PaymentReport, bodySHA256: String?) async throws -> NotificationOutcome {
        if let order = try await store.order(outTradeNo: report.outTradeNo) {
            try await store.append(
                EventRecord(
                    kind: .notificationRefused, detail: Self.detail(["reason": "no payment was started with this number"]),
                    bodySHA256: bodySHA256), to: order.id, now: clock.now())
        }
        return .refused
    }

    /// A reported success the payment's checks refused (another amount or currency): nothing
    /// was written; the refusal is logged after the transaction.
    private struct Refusal: Error {
        let payment: StoredPayment
        let error: PaymentError
    }

    /// A verified refund result: the refund found by its number, its success or failure recorded once.
    func record(_ report: RefundReport, wallet: PaymentMethod.Wallet, adapter: any PaymentAdapter, body: [UInt8]) async
        -> NotificationOutcome
    {
        do {
            guard let payment = try await store.payment(wallet: wallet, outTradeNo: report.outTradeNo) else { return .refused }
            var fields = report.fields
            if let minor = report.amountMinor {
                fields["refund"] = Money(minorUnits: minor, currency: payment.amount.currency).decimalString
            }
            let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(body))
            let known = try await store.refund(outRefundNo: report.outRefundNo)
            guard let refund = known, refund.paymentID == payment.id else {
                // A refund made elsewhere (the provider's console): recorded when its amount is known, logged either way.
                // (A number of another payment's refund is only logged.)
                let recorded =
                    known == nil
                    ? try await recordConsoleRefund(
                        report, of: payment, wallet: wallet, adapter: adapter, fields: fields, bodyHash: bodyHash)
                    : false
                if !recorded { try await logRefundEvent(fields, payment, bodyHash: bodyHash) }
                return .acknowledged
            }
            try await logRefundEvent(fields, payment, bodyHash: bodyHash)
            try await finish(refund, report.state)
            return .acknowledged
        } catch {
            return .retry
        }
    }
}

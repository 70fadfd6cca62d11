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
        guard let adapter = merchant.map({ adapters.adapter(for: provider, merchant: $0) }) ?? (try? adapters.adapter(for: provider)) else {
            return .error(
                status: 404, code: "not_found",
                message: "\(provider.rawValue) is not configured on this server" + (merchant.map { " for merchant \($0)" } ?? ""))
        }
        let outcome: NotificationOutcome
        var isRefund = false
        switch try? await adapter.notification(request) {
        case nil: outcome = .unverified  // nothing is touched by a message that does not verify
        case .payment(let report)?: outcome = await record(report, wallet: provider.wallet, body: request.body)
        case .refund(let report)?:
            isRefund = true
            outcome = await record(report, wallet: provider.wallet, adapter: adapter, body: request.body)
        }
        metrics.increment(
            "cashier_notifications_total", ["provider": Self.metricName(provider, refund: isRefund), "outcome": outcome.rawValue])
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

    /// A verified payment notification: the attempt found by its trade number at the wallet, the
    /// provider's checks run against it, the success recorded once (or its duplicate logged).
    /// A success takes one transaction: the attempt is found, checked and recorded together.
    func record(_ report: PaymentReport, wallet: PaymentMethod.Wallet, body: [UInt8]) async -> NotificationOutcome {
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(body))
        let detail = Self.detail(report.fields)
        do {
            if case .paid(let amount, let transactionID) = report.state {
                let check = report.check
                let found = try await store.recordPayment(
                    .succeeded(transactionID: transactionID, amount: amount), wallet: wallet, outTradeNo: report.outTradeNo,
                    accept: { payment in
                        do { try Self.accept(payment, amount: amount, check: check) } catch let error as PaymentError {
                            throw Refusal(payment: payment, error: error)
                        }
                    },
                    record: EventRecord(kind: .notification, detail: detail, bodySHA256: bodyHash),
                    duplicate: EventRecord(kind: .notificationDuplicate, detail: detail, bodySHA256: bodyHash), now: clock.now())
                if let found {
                    try await afterSuccess(found)
                    return .acknowledged  // only now: the change (or the duplicate) is on disk
                }
            } else if let payment = try await store.payment(wallet: wallet, outTradeNo: report.outTradeNo) {
                try await store.append(
                    EventRecord(kind: .notification, detail: detail, bodySHA256: bodyHash), to: payment.orderID, now: clock.now())
                return .acknowledged
            }
            // No attempt of ours has this number: logged against the order if one has it, refused.
            if let order = try await store.order(outTradeNo: report.outTradeNo) {
                try await store.append(
                    EventRecord(
                        kind: .notificationRefused, detail: Self.detail(["reason": "no payment was started with this number"]),
                        bodySHA256: bodyHash), to: order.id, now: clock.now())
            }
            return .refused
        } catch let refusal as Refusal {
            do { try await refuse(refusal.payment, refusal.error, bodySHA256: bodyHash) } catch { return .retry }
            return .refused
        } catch {
            return .retry
        }
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

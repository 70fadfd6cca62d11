import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// The providers' notify endpoints, as registered at the providers (so never renamed): WeChat
/// Pay v2 and its refunds, v3, Alipay — each also under a sub-merchant's own path
/// (`/m/{merchant}`) — Stripe's and Adyen's webhooks. A message is verified by its source
/// (signature, then merchant) before anything is read; ``EventApplier`` records what it says;
/// the provider hears back only after that is on disk.
///
/// These routes stay outside the API's middleware: on the worker thread that read it, a message
/// whose keys are held here is verified at once; one that does not verify is answered at once; a
/// reported success goes straight to the store's writer, whose finisher thread answers once it is
/// committed (a repeat, the usual case, needs nothing more); anything else is finished in a task.
struct NotifyController: Sendable {
    let ledger: Ledger
    /// Stripe's webhooks, when their signing secret is configured.
    let stripe: StripeEvents?
    /// Adyen's webhooks, when their HMAC key is configured.
    let adyen: AdyenEvents?

    /// The paths of the wallets' notifications, and whose they are.
    static let walletPaths: [(path: String, provider: PaymentProvider)] = [
        ("/notify/wechat/v2", .wechatV2), ("/notify/wechat/v2/refund", .wechatV2), ("/notify/wechat/v3", .wechatV3),
        ("/notify/alipay", .alipay),
    ]

    /// Wallet paths with no sub-merchant variant: UnionPay's (one `merId` per server).
    static let directPaths: [(path: String, provider: PaymentProvider)] = [("/notify/unionpay", .unionpay)]

    func register(on router: inout Router) {
        router.add("POST", "/notify/adyen") { request, _ in
            guard let adyen else {
                return .error(
                    status: 404, code: "not_found",
                    message: "Adyen webhooks are not configured on this server (applepay.adyen.hmac_key_env or hmac_key_file)")
            }
            return await processorWebhook(request, source: adyen)
        }
        router.add("POST", "/notify/stripe") { request, _ in
            guard let stripe else {
                return .error(
                    status: 404, code: "not_found",
                    message: "Stripe webhooks are not configured on this server (applepay.stripe.webhook_secret_env or webhook_secret_file)"
                )
            }
            return await processorWebhook(request, source: stripe)
        }
        // WeChat Pay's complaint notifications: the complaint is read from WeChat and recorded.
        let complaints = ledger.adapters.complaintHandling.compactMap { $0 as? WeChatV3Adapter }.first { $0.subMerchant == nil }
            .map(WeChatComplaintNotifications.init)
        router.add("POST", ComplaintService.notifyPath) { request, _ in
            guard let complaints else { return Self.unconfigured(.wechatV3, nil) }
            guard !request.body.isEmpty else { return Self.noBody }
            return await complaintNotification(request, source: complaints)
        }
        // WeChat Pay's transfer notifications (MCHTRANSFER.BILL.FINISHED): verified, then the transfer moved.
        let transfers = (ledger.adapters.transferring as? WeChatV3Adapter).map(WeChatTransferNotifications.init)
        router.add("POST", TransferService.notifyPath) { request, _ in
            guard let transfers else { return Self.unconfigured(.wechatV3, nil) }
            guard !request.body.isEmpty else { return Self.noBody }
            return await complaintNotification(request, source: transfers)
        }
        // Alipay's application gateway: its message service's split results (alipay.trade.order.settle.notify) and unsigns.
        let splits = ledger.adapters.splitting(.alipay).flatMap { $0 as? any Splitting & NotificationSource }.map(
            AlipayGatewayNotifications.init)
        router.add("POST", SplitService.alipayGatewayPath) { request, _ in
            guard let splits else { return Self.unconfigured(.alipay, nil) }
            guard !request.body.isEmpty else { return Self.noBody }
            return await complaintNotification(request, source: splits)
        }
        // Agreements signed and ended (WeChat Pay's contract XML, Alipay's dut_user_sign / dut_user_unsign).
        for provider in [PaymentProvider.wechatV2, .alipay] {
            guard let path = RecurringService.notifyPath(provider) else { continue }
            let source = ledger.adapters.recurring(provider).flatMap { $0 as? any Recurring & NotificationSource }.map(
                AgreementNotifications.init)
            router.add("POST", path) { request, _ in
                guard let source else { return Self.unconfigured(provider, nil) }
                guard !request.body.isEmpty else { return Self.noBody }
                return await complaintNotification(request, source: source)
            }
        }
        for (path, provider) in Self.walletPaths {
            let direct = (try? ledger.adapters.adapter(for: provider)).flatMap { $0 as? any NotificationSource }.map(Answers.init)
            router.addDeciding("POST", path) { request, _ in answer(request, provider: provider, source: direct, merchant: nil) }
            // A sub-merchant's notifications come to its own path, verified by its adapter.
            let merchantPath = path.hasSuffix("/refund") ? String(path.dropLast(7)) + "/m/{merchant}/refund" : path + "/m/{merchant}"
            var partners: [String: Answers] = [:]
            for merchant in ledger.configuration.subMerchants {
                if let source = ledger.adapters.adapter(for: provider, merchant: merchant.id) as? any NotificationSource {
                    partners[merchant.id] = Answers(source)
                }
            }
            let sources = partners
            router.addDeciding("POST", merchantPath) { request, parameters in
                let merchant = parameters["merchant"]
                return answer(request, provider: provider, source: sources[merchant], merchant: merchant)
            }
        }
        for (path, provider) in Self.directPaths {
            let direct = (try? ledger.adapters.adapter(for: provider)).flatMap { $0 as? any NotificationSource }.map(Answers.init)
            router.addDeciding("POST", path) { request, _ in answer(request, provider: provider, source: direct, merchant: nil) }
        }
    }

    /// A source with its four replies made once (most notifications are answered the same way).
    struct Answers: Sendable {
        let source: any NotificationSource
        let replies: [NotificationOutcome: HTTPServerResponse]

        init(_ source: any NotificationSource) {
            self.source = source
            var replies: [NotificationOutcome: HTTPServerResponse] = [:]
            for outcome in [NotificationOutcome.acknowledged, .refused, .retry, .unverified] {
                replies[outcome] = Self.response(source.reply(outcome)).prepared()
            }
            self.replies = replies
        }

        static func response(_ reply: NotificationReply) -> HTTPServerResponse {
            var headers: HTTPHeaders = [:]
            if let type = reply.contentType { headers.add("Content-Type", type) }
            return HTTPServerResponse(status: reply.status, headers: headers, body: reply.body)
        }
    }

    /// How a wallet's notification is answered, decided on the worker thread that read it.
    private func answer(_ request: HTTPServerRequest, provider: PaymentProvider, source: Answers?, merchant: String?) -> HTTPServer.Answer {
        guard let source else { return .now(Self.unconfigured(provider, merchant)) }
        guard !request.body.isEmpty else { return .now(Self.noBody) }
        let message = InboundMessage(headers: request.headers, body: request.body)
        guard let verified = source.source.verifyNow(message) else {
            return .later {
                do {
                    return await apply(try await source.source.verify(message), from: source, provider: provider, body: request.body)
                } catch {
                    return reply(source, .unverified, refund: false)
                }
            }
        }
        guard case .success(let events) = verified else { return .now(reply(source, .unverified, refund: false)) }
        let bodyHash = EventApplier.hash(request.body)
        guard events.count == 1, case .payment(let report) = events[0], let success = EventApplier.paid(report, bodyHash: bodyHash) else {
            return .later { await apply(events, from: source, provider: provider, body: request.body) }
        }
        let wallet = provider.wallet
        return .handedOff { answer in
            ledger.store.recordPayment(
                success.outcome, wallet: wallet, outTradeNo: report.outTradeNo, accept: success.accept, record: success.record,
                duplicate: success.duplicate, now: ledger.clock.now()
            ) { result in
                if let outcome = EventApplier.finishedAtOnce(result) {
                    return answer(reply(source, outcome, refund: false))
                }
                Task {
                    let outcome = await ledger.events.finishRecording(result, report, bodySHA256: bodyHash)
                    answer(reply(source, outcome, refund: false))
                }
            }
        }
    }

    private func apply(_ events: [ProviderEvent], from source: Answers, provider: PaymentProvider, body: [UInt8]) async
        -> HTTPServerResponse
    {
        let outcome = await ledger.events.apply(events, wallet: provider.wallet, bodyHash: EventApplier.hash(body))
        let refund = events.contains { if case .refund = $0 { true } else { false } }
        return reply(source, outcome, refund: refund)
    }

    /// A card processor's webhook (Stripe's, Adyen's): verified, every event applied in order,
    /// answered in the processor's words.
    private func processorWebhook(_ request: HTTPServerRequest, source: any NotificationSource) async -> HTTPServerResponse {
        guard !request.body.isEmpty else { return Self.noBody }
        let events: [ProviderEvent]
        do {
            events = try await source.verify(InboundMessage(headers: request.headers, body: request.body))
        } catch {
            count(source, .unverified, refund: false)
            return Answers.response(source.refusal(error))
        }
        let outcome = await ledger.events.apply(events, wallet: .applePay, bodyHash: EventApplier.hash(request.body))
        count(source, outcome, refund: false)
        return Answers.response(source.reply(outcome))
    }

    /// A complaint or transfer notification: verified, what it says recorded, then answered.
    private func complaintNotification(_ request: HTTPServerRequest, source: any NotificationSource) async -> HTTPServerResponse {
        let events: [ProviderEvent]
        do {
            events = try await source.verify(InboundMessage(headers: request.headers, body: request.body))
        } catch {
            count(source, .unverified, refund: false)
            return Answers.response(source.refusal(error))
        }
        let outcome = await ledger.events.apply(events, wallet: .wechat, bodyHash: EventApplier.hash(request.body))
        count(source, outcome, refund: false)
        return Answers.response(source.reply(outcome))
    }

    /// The provider's answer to what became of its notification, counted for `/metrics`.
    private func reply(_ answers: Answers, _ outcome: NotificationOutcome, refund: Bool) -> HTTPServerResponse {
        count(answers.source, outcome, refund: refund)
        return answers.replies[outcome] ?? Answers.response(answers.source.reply(outcome))
    }

    private func count(_ source: any NotificationSource, _ outcome: NotificationOutcome, refund: Bool) {
        ledger.metrics.increment(
            "cashier_notifications_total", ["provider": source.metricName(refund: refund), "outcome": outcome.rawValue])
    }

    /// A request with no body is no provider's notification: refused before anything is read.
    static let noBody = HTTPServerResponse.error(
        status: 400, code: "invalid_request", message: "a notification carries the provider's message in its body; this one has none")

    private static func unconfigured(_ provider: PaymentProvider, _ merchant: String?) -> HTTPServerResponse {
        .error(
            status: 404, code: "not_found",
            message: "\(provider.rawValue) is not configured on this server" + (merchant.map { " for merchant \($0)" } ?? ""))
    }
}

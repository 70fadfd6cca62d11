import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay API v3 (JSON, SHA256withRSA, AES-256-GCM resources; platform keys by serial).
struct WeChatV3Adapter: Refunding, Reconciling, NotificationSource, KeyMaintaining {
    let provider = PaymentProvider.wechatV3
    let methods: Set<PaymentMethod> = [.wechatApp, .wechatJSAPI, .wechatMiniProgram, .wechatNative, .wechatH5]
    let currencies: Set<Currency>?
    let configuration: MerchantConfiguration.WeChatV3
    let payer: WeChatPayer
    /// The appids a notification or query may name: the app's and the mini program's.
    let appIDs: Set<String>
    let transport: any HTTPTransport
    let notifyBase: @Sendable () -> String
    let clock: any WallClock
    /// A sub-merchant this adapter pays for through the partner APIs, with the service provider's
    /// credentials (``configuration``); `nil` for the direct merchant.
    var subMerchant: MerchantConfiguration.SubMerchant? = nil

    var notifyPath: String { subMerchant.map { "/notify/wechat/v3/m/\($0.id)" } ?? "/notify/wechat/v3" }

    /// The most `attach` carries in API v3.
    static let attachLimit = 128

    var client: WeChatPay.V3.Client {
        var client = WeChatPay.V3.Client(
            merchant: configuration.merchant, keys: configuration.platformKeys, transport: transport, baseURL: configuration.baseURL)
        client.partner = subMerchant.flatMap { sub in sub.wechatSubMchID.map { .init(subMchID: $0, subAppID: sub.wechatSubAppID) } }
        return client
    }

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        var prepared = try await payer.prepare(request, method: method)
        if let sub = subMerchant?.wechatSubMchID { prepared.merchantID = sub }
        return prepared
    }

    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> WalletParameters {
        let client = client
        let appID = payment.appID ?? configuration.appID
        let kind: WeChatPay.V3.Client.PrepayKind =
            switch payment.method {
            case .wechatNative: .native
            case .wechatH5: .h5
            case .wechatJSAPI, .wechatMiniProgram: .jsapi
            default: .app
            }
        let prepay = try await client.prepay(
            kind, appID: appID, description: order.description, outTradeNo: payment.outTradeNo, total: payment.amount,
            notifyURL: notifyBase() + notifyPath, openID: payment.payer, clientIP: request.client_ip,
            attach: OrderFieldsForProviders.metadata(order, limit: Self.attachLimit), goods: OrderFieldsForProviders.goods(order),
            expiresAt: OrderFieldsForProviders.expiry(order, now: clock.now()), profitSharing: order.profitSharing)
        switch kind {
        case .native: return .wechatQRCode(prepay.codeURL ?? "")
        case .h5: return .wechatH5(prepay.h5URL ?? "")
        case .jsapi:
            return .wechat(try WeChatPay.JSAPIParameters(appID: appID, prepayID: prepay.prepayID ?? "", merchant: client.merchant))
        case .app:
            return .wechat(
                try WeChatPay.AppPayParameters(
                    appID: client.partner?.subAppID ?? appID, prepayID: prepay.prepayID ?? "", merchant: client.merchant,
                    partnerID: client.partner?.subMchID))
        }
    }

    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState {
        let transaction: WeChatPay.V3.Transaction
        do {
            transaction = try await client.transaction(outTradeNo: payment.outTradeNo)
        } catch let error as PaymentError where error.providerCode == "ORDER_NOT_EXIST" {
            return .notFound
        }
        switch transaction.tradeState {
        case "SUCCESS", "REFUND":
            guard transaction.outTradeNo == payment.outTradeNo else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the query's answer is not about \(payment.outTradeNo)")
            }
            try transaction.check(
                mchID: configuration.merchant.mchID, appIDs: appIDs, subMchID: subMerchant?.wechatSubMchID, amount: payment.amount)
            return .paid(amount: transaction.amount, transactionID: transaction.transactionID)
        case "NOTPAY", "USERPAYING", "PAYERROR": return .unpaid
        default: return .failed("WeChat says \(transaction.tradeState)")
        }
    }

    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult {
        do {
            try await client.close(outTradeNo: payment.outTradeNo)
            return .closed
        } catch let error as PaymentError where error.providerCode == "ORDER_CLOSED" || error.providerCode == "ORDER_NOT_EXIST" {
            return .closed
        } catch let error as PaymentError where error.providerCode == "ORDERPAID" || error.providerCode == "ORDER_PAID" {
            guard case .paid(let amount, let transactionID) = try await query(payment) else { throw error }
            return .paid(amount: amount, transactionID: transactionID)
        }
    }

    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        // WeChat answers PROCESSING or SUCCESS once it has accepted a refund; a failure comes later
        // (ABNORMAL or CLOSED, by notification or query) and takes the refund back.
        try await ProviderAnswer.refund {
            try await client.refund(
                outTradeNo: payment.outTradeNo, outRefundNo: refund.outRefundNo, total: payment.amount, refund: refund.amount,
                reason: refund.reason, notifyURL: notifyBase() + notifyPath)
        }
    }

    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        do {
            return WeChatPayer.refundState(try await client.refundStatus(outRefundNo: refund.outRefundNo), id: nil)
        } catch let error as PaymentError where error.providerCode == "RESOURCE_NOT_EXISTS" {
            return .notFound
        }
    }

    func bill(date: String) async throws -> BillLines? {
        do {
            return WalletBill.lines(try await client.tradeBillRows(date: date))
        } catch let error as PaymentError where error.providerCode == "NO_STATEMENT_EXIST" {
            return BillLines([])  // no trades that day
        }
    }

    /// A v3 trade bill and fund-flow bill are the merchant's (the service provider's, for every sub-merchant).
    var billAccount: (trades: String, funds: String) {
        ("wechat.v3:\(configuration.merchant.mchID)", "wechat.v3:\(configuration.merchant.mchID)")
    }

    func fundFlow(date: String) async throws -> [FundFlowMovement]? {
        do {
            return WalletBill.movements(try await client.fundFlowBill(date: date))
        } catch let error as PaymentError where error.providerCode == "NO_STATEMENT_EXIST" {
            return []  // nothing moved that day
        }
    }

    /// The signature over the raw body first (platform key by `Wechatpay-Serial`, timestamp
    /// within five minutes of this server's clock), then the resource decrypted with the APIv3 key.
    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] {
        [try report(try await openNotification(message))]
    }

    /// A v3 notification (payment, refund, transfer, complaint) opened: its signature checked with
    /// the platform keys held and its resource decrypted. A serial this instance has not seen
    /// (WeChat rotated its certificate) downloads the certificates once — at most once a minute,
    /// however many such messages arrive — and verifies again.
    func openNotification(_ message: InboundMessage) async throws -> WeChatPay.V3.Notification {
        do {
            return try opened(message)
        } catch let error as PaymentError where error.code == .unknownKey {
            guard configuration.platformKeys.claimDownload(at: clock.now()), (try? await client.downloadCertificates()) != nil else {
                throw error
            }
            return try opened(message)
        }
    }

    /// Verified and decrypted on the worker thread when the platform key that signed it is held
    /// here; one signed by a key not yet downloaded waits for ``verify(_:)``.
    func verifyNow(_ message: InboundMessage) -> Result<[ProviderEvent], any Error>? {
        do {
            return .success([try report(try opened(message))])
        } catch let error as PaymentError where error.code == .unknownKey {
            return nil
        } catch {
            return .failure(error)
        }
    }

    /// The notification's signature checked with the platform keys held, and its resource decrypted.
    private func opened(_ message: InboundMessage) throws -> WeChatPay.V3.Notification {
        try WeChatPay.V3.Notification.open(
            body: message.body, headers: try WeChatPay.V3.SignatureHeaders(headers: message.headers), keys: configuration.platformKeys,
            apiV3Key: configuration.merchant.apiV3Key, now: clock.now())
    }

    /// What a verified notification reports: a refund's result or a payment's.
    private func report(_ notification: WeChatPay.V3.Notification) throws -> ProviderEvent {
        if notification.originalType == "refund" || notification.eventType.hasPrefix("REFUND.") {
            struct Resource: Decodable {
                struct Amount: Decodable { let refund: Int64? }
                let out_trade_no: String
                let out_refund_no: String
                let refund_id: String?
                let refund_status: String?
                let amount: Amount?
                let sub_mchid: String?
            }
            guard let resource = try? JSONDecoder().decode(Resource.self, from: Data(notification.plaintext)) else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the resource is not a refund")
            }
            guard resource.sub_mchid == subMerchant?.wechatSubMchID else {
                throw PaymentError(.merchantMismatch, provider: .wechatV3, "the refund is for another sub-merchant than this path's")
            }
            let status = resource.refund_status ?? ""
            return .refund(
                RefundReport(
                    outTradeNo: resource.out_trade_no, outRefundNo: resource.out_refund_no,
                    state: WeChatPayer.refundState(status, id: resource.refund_id),
                    merchantID: resource.sub_mchid ?? configuration.merchant.mchID,
                    fields: [
                        "notification_id": notification.id, "out_refund_no": resource.out_refund_no,
                        "refund_id": resource.refund_id ?? "", "refund_status": status,
                    ], amountMinor: resource.amount?.refund))
        }
        let transaction = try WeChatPay.V3.Transaction.decode(notification.plaintext)
        let merchant = configuration.merchant.mchID
        let sub = subMerchant?.wechatSubMchID
        let appIDs = appIDs
        return .payment(
            PaymentReport(
                outTradeNo: transaction.outTradeNo,
                state: transaction.tradeState == "SUCCESS"
                    ? .paid(amount: transaction.amount, transactionID: transaction.transactionID) : .unpaid,
                merchantID: sub ?? merchant,
                fields: [
                    "notification_id": notification.id, "event_type": notification.eventType,
                    "transaction_id": transaction.transactionID ?? "", "trade_state": transaction.tradeState,
                    "total": String(transaction.amount.minorUnits), "currency": transaction.amount.currency.code,
                ],
                check: { try transaction.check(mchID: merchant, appIDs: appIDs, subMchID: sub, amount: $0) }))
    }

    /// How old the platform certificates may get before they are downloaded again.
    static let certificateRefreshInterval: TimeInterval = 12 * 3600

    /// In certificate mode, downloads the platform certificates when this instance has none yet
    /// (at start, so notifications after a restart verify at once) and when they are 12 hours
    /// old (a rotation is picked up before the old certificate expires). A failure keeps the
    /// keys it has; the next run tries again.
    func maintainKeys() async {
        let keys = configuration.platformKeys
        guard configuration.downloadsPlatformCertificates,
            keys.lastRefreshed == nil || keys.needsRefresh(olderThan: Self.certificateRefreshInterval, at: clock.now())
        else { return }
        _ = try? await client.downloadCertificates()
    }

    /// WeChat counts 2xx as received and retries anything else.
    func reply(_ outcome: NotificationOutcome) -> NotificationReply {
        switch outcome {
        case .acknowledged: NotificationReply(status: 204, contentType: nil, bytes: [])
        case .refused: Self.fail(400, "refused: unknown order, another merchant or another amount")
        case .retry: Self.fail(500, "temporarily unavailable")
        case .unverified: Self.fail(401, "signature verification failed")
        }
    }

    /// `{"code":"FAIL","message":…}`, as WeChat Pay expects a refusal.
    private static func fail(_ status: Int, _ message: String) -> NotificationReply {
        NotificationReply(status: status, contentType: "application/json", bytes: APIJSON.encode(["code": "FAIL", "message": message]))
    }

    func metricName(refund: Bool) -> String { refund ? "wechat_v3_refund" : "wechat_v3" }
}

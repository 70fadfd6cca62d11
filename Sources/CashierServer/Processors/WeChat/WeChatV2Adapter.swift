import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay API v2 (XML, MD5 or HMAC-SHA256 with the API key).
struct WeChatV2Adapter: CounterCollector, Refunding, Reconciling, HeldKeyVerifying {
    let provider = PaymentProvider.wechatV2
    let methods: Set<PaymentMethod> = [.wechatApp, .wechatJSAPI, .wechatMiniProgram, .wechatNative, .wechatH5, .wechatBarcode]
    let currencies: Set<Currency>?
    let configuration: MerchantConfiguration.WeChat
    let payer: WeChatPayer
    /// The merchant under each appid it pays for: what notifications are verified against.
    let merchants: [WeChatPay.V2.Merchant]
    let transport: any HTTPTransport
    let mutualTLSTransport: (any HTTPTransport)?
    /// Where this server is reached (notify URLs hang off it).
    let notifyBase: @Sendable () -> String
    let clock: any WallClock
    /// A sub-merchant this adapter pays for, through the service provider's credentials
    /// (``configuration``); `nil` for the direct merchant.
    var subMerchant: MerchantConfiguration.SubMerchant? = nil

    /// Where this adapter's notifications arrive: the direct merchant's path, or the sub-merchant's own.
    var notifyPath: String { subMerchant.map { "/notify/wechat/v2/m/\($0.id)" } ?? "/notify/wechat/v2" }

    /// The most `attach` carries in API v2.
    static let attachLimit = 127

    /// A client for the appid the attempt was placed under (the app's, or a mini program's).
    func client(appID: String?) -> WeChatPay.V2.Client {
        var merchant = configuration.merchant
        // A sub-merchant's own app is its sub_appid: calls name the service provider's appid.
        if let appID, appID != merchant.appID, appID != subMerchant?.wechatSubAppID {
            merchant = WeChatPay.V2.Merchant(appID: appID, mchID: merchant.mchID, apiKey: merchant.apiKey, signType: merchant.signType)
        }
        var client = WeChatPay.V2.Client(
            merchant: merchant, transport: transport, mutualTLSTransport: mutualTLSTransport, baseURL: configuration.baseURL)
        client.subMerchant = subMerchant.flatMap { sub in sub.wechatSubMchID.map { .init(mchID: $0, appID: sub.wechatSubAppID) } }
        return client
    }

    /// Who signs the wallet's parameters: the merchant, or for a sub-merchant the service
    /// provider's key under the sub-merchant's number (`partnerid`) and app.
    func walletMerchant(_ client: WeChatPay.V2.Client) -> WeChatPay.V2.Merchant {
        guard let sub = client.subMerchant else { return client.merchant }
        return WeChatPay.V2.Merchant(
            appID: sub.appID ?? client.merchant.appID, mchID: sub.mchID, apiKey: client.merchant.apiKey, signType: client.merchant.signType)
    }

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        var prepared = try await payer.prepare(request, method: method)
        if let sub = subMerchant?.wechatSubMchID {
            prepared.merchantID = sub  // the payment is the sub-merchant's: queries, refunds and notifications name it
            if prepared.appID == configuration.merchant.appID, let app = subMerchant?.wechatSubAppID { prepared.appID = app }
        }
        return prepared
    }

    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> WalletParameters {
        let client = client(appID: payment.appID)
        let tradeType: WeChatPay.V2.UnifiedOrder.TradeType =
            switch payment.method {
            case .wechatNative: .native
            case .wechatH5: .mweb
            case .wechatJSAPI, .wechatMiniProgram: .jsapi
            default: .app
            }
        let result = try await client.unifiedOrder(
            .init(
                tradeType: tradeType, body: order.description, outTradeNo: payment.outTradeNo, total: payment.amount,
                notifyURL: notifyBase() + notifyPath, clientIP: request.client_ip ?? "127.0.0.1", openID: payment.payer,
                productID: tradeType == .native ? order.id : nil, attach: OrderFieldsForProviders.metadata(order, limit: Self.attachLimit),
                goods: OrderFieldsForProviders.goods(order), expiresAt: OrderFieldsForProviders.expiry(order, now: clock.now()),
                h5Site: tradeType == .mweb ? h5Site : nil))
        switch tradeType {
        case .native: return .wechatQRCode(result.codeURL ?? "")
        case .mweb: return .wechatH5(result.mwebURL ?? "")
        case .jsapi:
            return .wechat(WeChatPay.V2.JSAPIParameters(prepayID: result.prepayID, merchant: walletMerchant(client)))
        case .app:
            return .wechat(WeChatPay.V2.AppPayParameters(prepayID: result.prepayID, merchant: walletMerchant(client)))
        }
    }

    /// The site H5 orders name: the configured one, or this server's address under its host name
    /// (a sub-merchant's, under the sub-merchant's name).
    var h5Site: WeChatPay.V2.UnifiedOrder.H5Site {
        let base = notifyBase()
        if let sub = subMerchant { return .init(url: base, name: sub.name) }
        return configuration.h5Site ?? .init(url: base, name: URL(string: base)?.host ?? base)
    }

    func checkPaymentCode(_ code: String) throws {
        guard WeChatPay.PaymentCode.isValid(code) else {
            throw PaymentError(
                .invalidRequest,
                "auth_code is not a WeChat Pay payment code (\(WeChatPay.PaymentCode.format)); an Alipay code goes with alipay.barcode")
        }
    }

    func collect(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> CounterAnswer {
        let answer: WeChatPay.V2.MicropayAnswer
        do {
            answer = try await client(appID: payment.appID).micropay(
                .init(
                    body: order.description, outTradeNo: payment.outTradeNo, total: payment.amount,
                    clientIP: request.client_ip ?? "127.0.0.1",
                    authCode: request.auth_code ?? "", attach: OrderFieldsForProviders.metadata(order, limit: Self.attachLimit),
                    goods: OrderFieldsForProviders.goods(order), expiresAt: OrderFieldsForProviders.expiry(order, now: clock.now())))
        } catch let error as PaymentError where error.providerCode == "ORDERPAID" {
            return .unknown("ORDERPAID")  // this number was collected before (a retried request): the query says how much
        }
        switch answer {
        case .paid(let amount, let transactionID): return .paid(amount: amount, transactionID: transactionID)
        case .waiting: return .waiting
        case .unknown(let code): return .unknown(code)
        }
    }

    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState {
        let status: WeChatPay.V2.OrderStatus
        do {
            status = try await client(appID: payment.appID).orderQuery(outTradeNo: payment.outTradeNo)
        } catch let error as PaymentError where error.providerCode == "ORDERNOTEXIST" {
            // A withholding deduction (trade type PAP) is asked for by its own query.
            do {
                status = try await client(appID: payment.appID).papOrderQuery(outTradeNo: payment.outTradeNo)
            } catch let error as PaymentError where error.providerCode == "ORDERNOTEXIST" {
                return .notFound
            }
        }
        switch status.tradeState {
        case "SUCCESS", "REFUND":
            // What WeChat says, never what was asked: a paid answer names this trade and its amount.
            guard status.outTradeNo == payment.outTradeNo, let amount = status.amount else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV2, "the query's answer does not name \(payment.outTradeNo) and its amount")
            }
            return .paid(amount: amount, transactionID: status.transactionID)
        case "PAYERROR" where payment.method == .wechatBarcode: return .failed("WeChat says PAYERROR: the payment did not go through")
        case "NOTPAY", "USERPAYING", "PAYERROR", "ACCEPT": return .unpaid  // ACCEPT: a deduction not yet made
        case "PAY_FAIL": return .failed("WeChat says PAY_FAIL: \(status.document["trade_state_desc"] ?? "the deduction failed")")
        default: return .failed("WeChat says \(status.tradeState)")
        }
    }

    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult {
        if payment.method == .wechatBarcode {
            return try await giveUp(payment) {
                do {
                    return try await client(appID: payment.appID).reverse(outTradeNo: payment.outTradeNo)
                } catch let error as PaymentError where error.providerCode == "ORDERNOTEXIST" {
                    return false  // never reached WeChat: nothing to reverse
                } catch let error as PaymentError where error.providerCode == "SYSTEMERROR" || error.providerCode == "USERPAYING" {
                    return true  // WeChat's word for "call reverse again"
                }
            }
        }
        do {
            try await client(appID: payment.appID).closeOrder(outTradeNo: payment.outTradeNo)
            return .closed
        } catch let error as PaymentError where error.providerCode == "ORDERCLOSED" || error.providerCode == "ORDERNOTEXIST" {
            return .closed
        } catch let error as PaymentError where error.providerCode == "ORDERPAID" {
            guard case .paid(let amount, let transactionID) = try await query(payment) else { throw error }
            return .paid(amount: amount, transactionID: transactionID)
        }
    }

    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        try await ProviderAnswer.refund {
            try await client(appID: payment.appID).refund(
                outTradeNo: payment.outTradeNo, outRefundNo: refund.outRefundNo, total: payment.amount, refund: refund.amount,
                reason: refund.reason, notifyURL: notifyBase() + notifyPath + "/refund")
        }
    }

    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        let document: WeChatPay.V2.XMLDocument
        do {
            document = try await client(appID: payment.appID).refundQuery(outRefundNo: refund.outRefundNo)
        } catch let error as PaymentError where error.providerCode == "REFUNDNOTEXIST" {
            return .notFound
        }
        let count = Int(document["refund_count"] ?? "") ?? 0
        for index in 0..<count where document["out_refund_no_\(index)"] == refund.outRefundNo {
            return WeChatPayer.refundState(document["refund_status_\(index)"] ?? "", id: document["refund_id_\(index)"])
        }
        return .notFound
    }

    func bill(date: String) async throws -> BillLines? {
        do {
            return WalletBill.lines(try await client(appID: nil).downloadBillRows(date: date.replacingOccurrences(of: "-", with: "")))
        } catch let error as PaymentError where error.providerMessage == "No Bill Exist" {
            return BillLines([])  // no trades that day
        }
    }

    /// A v2 bill asked for with `sub_mch_id` is the sub-merchant's; the balance is the merchant's
    /// (the service provider's) own.
    var billAccount: (trades: String, funds: String) {
        let mchID = configuration.merchant.mchID
        return ("wechat.v2:\(mchID)/\(subMerchant?.wechatSubMchID ?? "")", "wechat.v2:\(mchID)")
    }

    func fundFlow(date: String) async throws -> [FundFlowMovement]? {
        do {
            return WalletBill.movements(try await client(appID: nil).downloadFundFlow(date: date.replacingOccurrences(of: "-", with: "")))
        } catch let error as PaymentError where error.providerMessage == "No Bill Exist" {
            return []  // nothing moved that day
        }
    }

    func verified(_ message: InboundMessage) throws -> [ProviderEvent] {
        if ByteSearch.contains(message.body, Self.refundMarker) {
            // Refunds of a mini program's (or official account's) payments name its appid. Its merchant
            // fields sit outside the encrypted req_info, unsigned: they decide nothing. The refund is
            // this path's merchant's, and the payment it names must be that merchant's (EventApplier).
            let refund = try WeChatPay.V2.RefundNotification.verify(message.body, merchants: merchants)
            return [
                .refund(
                    RefundReport(
                        outTradeNo: refund.outTradeNo, outRefundNo: refund.outRefundNo,
                        state: WeChatPayer.refundState(refund.refundStatus, id: refund.refundID), merchantID: pathMerchant,
                        fields: [
                            "out_refund_no": refund.outRefundNo, "refund_id": refund.refundID, "refund_status": refund.refundStatus,
                            "refund_fee": refund.refundAmount.decimalString,
                        ], amountMinor: refund.refundAmount.minorUnits))
            ]
        }
        // The app's appid, or the mini program's: the same merchant key signs both.
        let notification = try WeChatPay.V2.PaymentNotification.verify(message.body, merchants: merchants)
        try checkSubMerchant(notification.document["sub_mch_id"])
        return [
            .payment(
                PaymentReport(
                    outTradeNo: notification.outTradeNo,
                    state: notification.isSuccess
                        ? .paid(amount: notification.amount, transactionID: notification.transactionID)
                        : notification.document["trade_type"] == "PAP" ? .failed(Self.deductionFailure(notification.document)) : .unpaid,
                    merchantID: notification.document["sub_mch_id"] ?? notification.document["mch_id"],
                    fields: [
                        "transaction_id": notification.transactionID, "total_fee": String(notification.amount.minorUnits),
                        "currency": notification.amount.currency.code,
                    ],
                    check: { try notification.check(amount: $0) }))
        ]
    }

    /// A verified notification must name this adapter's sub-merchant (`sub_mch_id`), and a direct
    /// merchant's none: one sub-merchant's path never records another's payment.
    func checkSubMerchant(_ named: String?) throws {
        guard named == subMerchant?.wechatSubMchID else {
            throw PaymentError(
                .merchantMismatch, provider: .wechatV2, "the notification is for sub_mch_id \(named ?? "none"), not this path's")
        }
    }

    /// The merchant this path is for, as its payments record it: the sub-merchant's number, or the merchant's own.
    var pathMerchant: String { subMerchant?.wechatSubMchID ?? configuration.merchant.mchID }

    /// What only a refund result carries (its encrypted `req_info`), as bytes.
    static let refundMarker = Array("<req_info>".utf8)

    func reply(_ outcome: NotificationOutcome) -> NotificationReply {
        switch outcome {
        case .acknowledged: Self.reply(.success)
        case .refused: Self.reply(.failure("refused: unknown order or another amount"))
        case .retry: Self.reply(.failure("temporarily unavailable"))
        case .unverified: Self.reply(.failure("signature or merchant check failed"), status: 401)
        }
    }

    /// WeChat Pay reads the XML (FAIL makes it send again); a message that does not verify is
    /// also refused in HTTP's words (401).
    static func reply(_ answer: WeChatPay.V2.NotificationReply, status: Int = 200) -> NotificationReply {
        NotificationReply(status: status, contentType: "application/xml; charset=utf-8", body: answer.xmlString)
    }

    func metricName(refund: Bool) -> String { refund ? "wechat_refund" : "wechat" }
}

import Alipay
import Cashier
import CashierStore
import Foundation

/// Alipay's open API (RSA2): app pay order strings, the wap and page cashiers, QR codes.
struct AlipayAdapter: CounterCollector, HeldKeyVerifying, Refunding, Reconciling {
    let provider = PaymentProvider.alipay
    let methods: Set<PaymentMethod> = [.alipayApp, .alipayWap, .alipayPage, .alipayQR, .alipayBarcode]
    /// The domestic API takes CNY only (amounts are sent without a currency).
    let currencies: Set<Currency>? = [.cny]
    let configuration: MerchantConfiguration.Alipay
    let transport: any HTTPTransport
    let notifyBase: @Sendable () -> String
    let clock: any WallClock
    /// A sub-merchant this adapter pays for as the ISV (its `app_auth_token` on every call, with
    /// the ISV's app credentials in ``configuration``); `nil` for the direct merchant.
    var subMerchant: MerchantConfiguration.SubMerchant? = nil

    var client: Alipay.Client {
        Alipay.Client(
            appID: configuration.appID, signer: Alipay.Signer(privateKey: configuration.privateKey),
            alipayPublicKey: configuration.alipayPublicKey, transport: transport, gateway: configuration.gateway,
            appAuthToken: subMerchant?.alipayAppAuthToken)
    }

    var notifyURL: String { notifyBase() + (subMerchant.map { "/notify/alipay/m/\($0.id)" } ?? "/notify/alipay") }

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        if method == .alipayWap || method == .alipayPage {
            guard let returnURL = request.return_url, URL(string: returnURL)?.scheme?.hasPrefix("http") == true else {
                throw PaymentError(.invalidRequest, "\(method.rawValue) needs return_url, the page Alipay sends the browser back to")
            }
        }
        // A sub-merchant's payments are known by its own app id (what notifications name as auth_app_id).
        return PreparedAttempt(appID: configuration.appID, merchantID: subMerchant?.alipayAppID ?? configuration.sellerID, payer: nil)
    }

    /// The order's expiry, metadata and goods, as `biz_content` carries them.
    func extras(_ order: StoredOrder) -> Alipay.TradeExtras {
        Alipay.TradeExtras(
            expiresIn: OrderFieldsForProviders.expiry(order, now: clock.now()).map { $0.timeIntervalSince(clock.now()) },
            passback: OrderFieldsForProviders.metadata(order, limit: Alipay.TradeExtras.passbackLimit) {
                Alipay.FormBody.escape($0).utf8.count
            },
            goods: OrderFieldsForProviders.goods(order),
            // Profit sharing: the paid money stays frozen until settled to receivers (alipay.trade.order.settle).
            royaltyFreeze: order.profitSharing)
    }

    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> WalletParameters {
        let extras = extras(order)
        switch payment.method {
        case .alipayWap, .alipayPage:
            let apiMethod = payment.method == .alipayWap ? "alipay.trade.wap.pay" : "alipay.trade.page.pay"
            let returnURL = request.return_url ?? ""
            var extras = extras
            // The wap cashier's way back for a payer who gives up: the same page, which asks how it went.
            if payment.method == .alipayWap { extras.quitURL = returnURL }
            let url = try client.paymentPageURL(
                method: apiMethod, outTradeNo: payment.outTradeNo, total: payment.amount, subject: order.description,
                notifyURL: notifyURL, returnURL: returnURL, extras: extras)
            let form = try client.paymentPageForm(
                method: apiMethod, outTradeNo: payment.outTradeNo, total: payment.amount, subject: order.description,
                notifyURL: notifyURL, returnURL: returnURL, extras: extras)
            return .alipayPage(url: url.absoluteString, form: form)
        case .alipayApp:
            let fields: [String: Any] = [
                "out_trade_no": payment.outTradeNo, "total_amount": payment.amount.decimalString, "subject": order.description,
                "product_code": "QUICK_MSECURITY_PAY",  // app pay's product, which Alipay's documentation requires
            ]
            let biz = String(
                decoding: try JSONSerialization.data(
                    withJSONObject: fields.merging(extras.biz) { first, _ in first }, options: [.sortedKeys, .withoutEscapingSlashes]),
                as: UTF8.self)
            let orderString = try Alipay.OrderString.make(
                appID: configuration.appID, signer: Alipay.Signer(privateKey: configuration.privateKey), notifyURL: notifyURL,
                bizContent: biz, appAuthToken: subMerchant?.alipayAppAuthToken)
            return .alipayOrderString(orderString)
        default:
            let qr = try await client.precreate(
                outTradeNo: payment.outTradeNo, total: payment.amount, subject: order.description, notifyURL: notifyURL, extras: extras)
            return .alipayQRCode(qr)
        }
    }

    func checkPaymentCode(_ code: String) throws {
        guard Alipay.PaymentCode.isValid(code) else {
            throw PaymentError(
                .invalidRequest,
                "auth_code is not an Alipay payment code (\(Alipay.PaymentCode.format)); a WeChat Pay code goes with wechat.barcode")
        }
    }

    func collect(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> CounterAnswer {
        let answer: Alipay.BarcodeAnswer
        do {
            answer = try await client.pay(
                outTradeNo: payment.outTradeNo, total: payment.amount, subject: order.description, authCode: request.auth_code ?? "",
                notifyURL: notifyURL, extras: extras(order))
        } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_HAS_SUCCESS" {
            return .unknown("ACQ.TRADE_HAS_SUCCESS")  // collected before (a retried request): the query says how much
        }
        switch answer {
        case .paid(let amount, let tradeNo): return .paid(amount: amount, transactionID: tradeNo)
        case .waiting: return .waiting
        case .unknown(let code): return .unknown(code)
        }
    }

    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState {
        let trade: Alipay.Trade
        do {
            trade = try await client.query(outTradeNo: payment.outTradeNo)
        } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_NOT_EXIST" {
            return .notFound
        }
        guard trade.outTradeNo == payment.outTradeNo else {
            throw PaymentError(.malformedMessage, provider: .alipay, "the query's answer is not about \(payment.outTradeNo)")
        }
        if trade.isPaid { return .paid(amount: trade.totalAmount, transactionID: trade.tradeNo) }
        return trade.tradeStatus == "WAIT_BUYER_PAY" ? .unpaid : .failed("Alipay says \(trade.tradeStatus)")
    }

    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult {
        if payment.method == .alipayBarcode {
            return try await giveUp(payment) {
                do {
                    return try await client.cancel(outTradeNo: payment.outTradeNo)
                } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_NOT_EXIST" {
                    return false  // never reached Alipay: nothing to cancel
                } catch let error as PaymentError where error.providerCode == "ACQ.SYSTEM_ERROR" {
                    return true
                }
            }
        }
        do {
            try await client.close(outTradeNo: payment.outTradeNo)
            return .closed
        } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_NOT_EXIST" {
            // An app-pay order string the payer never opened does not exist at Alipay: nothing to
            // close there (if it is paid later, the payment is recorded and flagged for refund).
            return .closed
        } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_STATUS_ERROR" {
            switch try await query(payment) {
            case .paid(let amount, let transactionID): return .paid(amount: amount, transactionID: transactionID)
            case .failed, .notFound: return .closed
            default: throw error
            }
        }
    }

    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        // Alipay's refund has no id of its own: out_request_no is the refund's number.
        try await ProviderAnswer.refund {
            _ = try await client.refund(
                outTradeNo: payment.outTradeNo, amount: refund.amount, outRequestNo: refund.outRefundNo, reason: refund.reason)
            return nil
        }
    }

    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        // Alipay answers a refund it does not have (or did not complete) with no refund fields.
        guard try await client.refundQuery(outTradeNo: payment.outTradeNo, outRequestNo: refund.outRefundNo) != nil else {
            return .notFound
        }
        return .succeeded(providerRefundID: nil)
    }

    /// `alipay.trade.fastpay.refund.query` by the refund's `out_request_no` (the notification's `out_biz_no`).
    func consoleRefundAmount(_ outRefundNo: String, of payment: StoredPayment) async throws -> Money? {
        try await client.refundQuery(outTradeNo: payment.outTradeNo, outRequestNo: outRefundNo)
    }

    func bill(date: String) async throws -> BillLines? {
        do {
            var rows = try await client.downloadBillRows(date: date)
            return BillLines {
                guard let row = try rows.next() else { return nil }
                return row.kind == .refund
                    ? BillEntry(
                        wallet: .alipay, outTradeNo: row.outTradeNo, kind: .refund,
                        amount: Money(minorUnits: -row.amount.minorUnits, currency: row.amount.currency), reference: row.refundRequestNo,
                        fee: row.fee)
                    : BillEntry(
                        wallet: .alipay, outTradeNo: row.outTradeNo, kind: .payment, amount: row.amount, reference: row.tradeNo,
                        fee: row.fee)
            }
        } catch let error as PaymentError where error.providerCode == "isp.bill_not_exist" {
            return BillLines([])  // no bill for that day
        }
    }

    /// With an `app_auth_token` the bills are the authorising merchant's own.
    var billAccount: (trades: String, funds: String) {
        let account = "alipay:\(configuration.appID)/\(subMerchant?.alipayAppID ?? "")"
        return (account, account)
    }

    func fundFlow(date: String) async throws -> [FundFlowMovement]? {
        do {
            return try await client.downloadFundFlow(date: date).rows.map { row in
                FundFlowMovement(
                    id: row.flowID, amount: Money(minorUnits: row.income.minorUnits - row.expense.minorUnits, currency: .cny),
                    isFee: row.isFee)
            }
        } catch let error as PaymentError where error.providerCode == "isp.bill_not_exist" {
            return []  // nothing moved that day
        }
    }

    func verified(_ message: InboundMessage) throws -> [ProviderEvent] {
        let notification = try Alipay.Notification.verify(
            message.body, publicKey: configuration.alipayPublicKey, appID: configuration.appID,
            sellerID: subMerchant == nil ? configuration.sellerID : nil)
        // An ISV's notification names the merchant that granted it (auth_app_id); a direct one, itself.
        let authorizer = notification.fields["auth_app_id"] ?? notification.appID
        guard authorizer == (subMerchant?.alipayAppID ?? configuration.appID) else {
            throw PaymentError(.merchantMismatch, provider: .alipay, "the notification is for app \(authorizer), not this path's merchant")
        }
        // As payments record it: an ISV's merchant by its app id (the signed auth_app_id, checked
        // above), a direct merchant by its seller id (the signed seller_id, checked when configured).
        let merchant = subMerchant == nil ? configuration.sellerID.map { _ in notification.fields["seller_id"] ?? "" } : authorizer
        if let refund = notification.refund {
            return [
                .refund(
                    RefundReport(
                        outTradeNo: notification.outTradeNo, outRefundNo: refund.outRequestNo, state: .succeeded(providerRefundID: nil),
                        merchantID: merchant,
                        fields: [
                            "trade_no": notification.tradeNo, "trade_status": notification.tradeStatus, "out_biz_no": refund.outRequestNo,
                            "refund_fee": refund.refundedSoFar?.decimalString ?? "", "gmt_refund": refund.time ?? "",
                        ]))
            ]
        }
        return [
            .payment(
                PaymentReport(
                    outTradeNo: notification.outTradeNo,
                    state: notification.isPaid ? .paid(amount: notification.totalAmount, transactionID: notification.tradeNo) : .unpaid,
                    merchantID: merchant,
                    fields: [
                        "trade_no": notification.tradeNo, "trade_status": notification.tradeStatus,
                        "total_amount": notification.totalAmount.decimalString,
                    ],
                    check: { try notification.check(outTradeNo: notification.outTradeNo, amount: $0) }))
        ]
    }

    /// Alipay reads the body (anything but `success` makes it send again); a message that does not
    /// verify is also refused in HTTP's words (401).
    func reply(_ outcome: NotificationOutcome) -> NotificationReply {
        NotificationReply(
            status: outcome == .unverified ? 401 : 200, contentType: "text/plain; charset=utf-8",
            body: outcome == .acknowledged ? Alipay.Notification.successReply : "failure")
    }

    func metricName(refund: Bool) -> String { refund ? "alipay_refund" : "alipay" }
}

import Cashier
import CashierCrypto
import CashierStore
import Foundation
import UnionPay

/// UnionPay's online gateway (全渠道) 5.1.0: a consume (`appTransReq.do`) answers a `tn`, which the
/// app hands to UnionPay's Apple Pay plugin (`unionpay.applepay`) or to 云闪付 (`unionpay.app`);
/// UnionPay's back notification or a query (`queryTrans.do`) says whether it was paid; refunds
/// (`04`) go to `backTransReq.do`; the day's reconciliation file comes from the file host.
///
/// Each transaction is named at UnionPay by `orderId` and `txnTime`, both kept by the records:
/// a payment's `orderId` is its `out_trade_no` and its `txnTime` the Beijing time it was reserved
/// at (``StoredPayment/createdAt``); a refund's, its `out_refund_no` (``transactionNumber(_:)``) and
/// ``StoredRefund/createdAt``; the consume's `queryId` is the payment's transaction id. A consume
/// cannot be sent twice under one `orderId` (UnionPay answers `12` 重复交易), so a payment whose
/// consume answer was lost starts again under a new trade number (``ProviderAnswer/needsNewTradeNumber(_:)``).
///
/// Refunds are always `04` (退货), never the undo `31` (消费撤销): a refund works the same day and
/// after, for part or all of the amount; an undo only for all of it before the day's cut-off,
/// which the server cannot know for sure (the research: "same CUPS batch / same day"), and one
/// refused near the cut-off would have to go again as a refund under another number.
struct UnionPayAdapter: HeldKeyVerifying, Refunding, Reconciling {
    let provider = PaymentProvider.unionpay
    let methods: Set<PaymentMethod> = [.unionpayApplePay, .unionpayApp]
    /// A domestic merchant takes CNY (`currencyCode=156`).
    let currencies: Set<Currency>? = [.cny]
    let configuration: MerchantConfiguration.UnionPaySettings
    let transport: any HTTPTransport
    let notifyBase: @Sendable () -> String
    let clock: any WallClock

    /// How long after its consume a `tn` can be paid (`payTimeout`, sooner when the order expires
    /// sooner). Until then (and a few minutes for clocks), UnionPay's `34` 查无此交易 means "not
    /// paid yet", not "no such trade".
    static let payWindow: TimeInterval = 30 * 60
    static let clockGrace: TimeInterval = 5 * 60

    var client: UnionPay.Client {
        UnionPay.Client(
            merchantID: configuration.merchantID, signingKey: configuration.signingKey, verifier: configuration.verifier,
            endpoints: configuration.endpoints, transport: transport)
    }

    var notifyURL: URL {
        URL(string: notifyBase() + "/notify/unionpay") ?? URL(string: "http://127.0.0.1/notify/unionpay")!
    }

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        // The plugin shows the sheet only when Apple Pay holds a China UnionPay card: an app that
        // asked PassKit and heard no is told now, not by a plugin that never opens.
        if method == .unionpayApplePay, request.payer_wallets?.canPayWithChinaUnionPay == false {
            throw PaymentError(
                .invalidRequest, provider: .unionpay,
                "unionpay.applepay needs a China UnionPay card in Apple Pay on this device (payer_wallets.apple_pay_networks has no "
                    + "ChinaUnionPay): offer unionpay.app (云闪付) instead")
        }
        return PreparedAttempt(appID: nil, merchantID: configuration.merchantID, payer: nil)
    }

    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> WalletParameters {
        var timeout = payment.createdAt.addingTimeInterval(Self.payWindow)
        if let expiry = OrderFieldsForProviders.expiry(order, now: clock.now()), expiry < timeout { timeout = expiry }
        let consume = try UnionPay.ConsumeRequest(
            orderID: payment.outTradeNo, amount: payment.amount, backURL: notifyURL, time: payment.createdAt, payTimeout: timeout,
            orderDescription: Self.description(order.description))
        let answer = try await client.consume(consume)
        return .unionpay(tn: answer.tn, mode: configuration.environment.pluginMode)
    }

    /// `orderDesc` without what would break UnionPay's raw answers (it is echoed).
    static func description(_ text: String) -> String? {
        let kept = String(text.filter { !"&{}[]\r\n".contains($0) }.prefix(32))
        return kept.isEmpty ? nil : kept
    }

    /// `txnTime` of a record: Beijing time, to the second, of when it was reserved.
    static func transactionTime(_ date: Date) -> String { UnionPay.Identifiers.transactionTime(date) }

    /// The `orderId` a refund is sent under: its `out_refund_no` when UnionPay takes it (8 to 40
    /// letters and digits, as Cashier makes them), else a fixed digest of it.
    static func transactionNumber(_ number: String) -> String {
        if (try? UnionPay.Identifiers.checkOrderID(number)) != nil { return number }
        return "X" + Hex.encode(DigestAlgorithm.sha256.hash(Array(number.utf8))).prefix(31)
    }

    /// `reqReserved` of a refund, echoed in its notification and the reconciliation file:
    /// the payment's trade number (first: the file keeps 32 bytes of it), then the refund's number.
    static func refundReserved(_ refund: StoredRefund, of payment: StoredPayment) -> String {
        payment.outTradeNo + ":" + refund.outRefundNo
    }

    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState {
        let result = try await client.query(orderID: payment.outTradeNo, transactionTime: Self.transactionTime(payment.createdAt))
        if let type = result.transactionType, type != "01" {
            throw PaymentError(.malformedMessage, provider: .unionpay, "UnionPay's query answer is about a txnType \(type), not a consume")
        }
        switch result.state {
        case .succeeded:
            guard let amount = result.amount, let queryID = result.queryID else {
                throw PaymentError(.malformedMessage, provider: .unionpay, "UnionPay's query answer says paid without txnAmt and queryId")
            }
            return .paid(amount: amount, transactionID: queryID)
        case .inProcess: return .unpaid
        case .failed(let code, let message): return .failed("UnionPay says \(code.rawValue) \(message)")
        case .notFound:
            // 34 until the payer pays: the tn can still be paid until its payTimeout.
            let deadline = payment.createdAt.addingTimeInterval(Self.payWindow + Self.clockGrace)
            return clock.now() < deadline ? .unpaid : .notFound
        }
    }

    /// UnionPay has no close for an app consume: its `tn` lapses at `payTimeout`. What a query
    /// finds is the answer — paid, or closed here (a payment that lands later is recorded and
    /// flagged for refund, as for every provider).
    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult {
        if case .paid(let amount, let transactionID) = try await query(payment) {
            return .paid(amount: amount, transactionID: transactionID)
        }
        return .closed
    }

    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        guard let queryID = payment.transactionID else {
            return .failed("the payment has no UnionPay queryId to refund (origQryId)")
        }
        let request = try UnionPay.ReversalRequest(
            kind: .refund, orderID: Self.transactionNumber(refund.outRefundNo), originalQueryID: queryID, amount: refund.amount,
            backURL: notifyURL, time: refund.createdAt, reserved: Self.refundReserved(refund, of: payment))
        do {
            let answer = try await client.reverse(request)
            return answer.state == .accepted ? .succeeded(providerRefundID: answer.queryID) : .processing
        } catch let error as PaymentError where error.providerCode == UnionPay.ResponseCode.duplicate.rawValue {
            // Sent before under this number (a retry after a lost answer): UnionPay says where it stands.
            return try await refundState(refund, of: payment)
        } catch let error as PaymentError where ProviderAnswer.isDefinitiveRefusal(error) {
            return .failed(ProviderAnswer.words(error))
        }
    }

    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        let result = try await client.query(
            orderID: Self.transactionNumber(refund.outRefundNo), transactionTime: Self.transactionTime(refund.createdAt))
        if let original = result.fields["origQryId"], let queryID = payment.transactionID, original != queryID {
            throw PaymentError(.malformedMessage, provider: .unionpay, "UnionPay's answer is about a refund of another payment")
        }
        switch result.state {
        case .succeeded: return .succeeded(providerRefundID: result.queryID)
        case .inProcess: return .processing
        case .failed(let code, let message): return .failed("UnionPay says \(code.rawValue) \(message)")
        case .notFound: return .notFound
        }
    }

    // MARK: Reconciliation

    func bill(date: String) async throws -> BillLines? {
        try await billEntries(date: date).map(BillLines.init)
    }

    func billEntries(date: String) async throws -> [BillEntry]? {
        let parts = date.split(separator: "-")
        guard parts.count == 3 else { throw PaymentError(.invalidRequest, provider: .unionpay, "the day must be yyyy-MM-dd") }
        guard let file = try await client.reconciliationFile(settleDate: String(parts[1] + parts[2]), time: clock.now()) else {
            return []  // 98: nothing settled that day
        }
        // UnionPay keeps a year of files by MMDD: one for another year is not this day's.
        if !file.fileName.isEmpty, !file.fileName.contains(parts.joined()) { return [] }
        let lines = file.lines.filter { $0.merchantID.isEmpty || $0.merchantID == configuration.merchantID }
        let consumes = Dictionary(lines.filter { $0.transactionType == "01" }.map { ($0.queryID, $0.orderID) }) { first, _ in first }
        return lines.map { line in
            let fee = Money(minorUnits: -line.fee.minorUnits, currency: .cny)
            guard line.transactionType != "01" else {
                return BillEntry(
                    wallet: .unionpay, outTradeNo: line.orderID, kind: .payment, amount: line.amount, reference: line.queryID, fee: fee)
            }
            // A refund names its payment by reqReserved (Cashier's), else by the consume's line.
            let named = line.reserved.split(separator: ":", maxSplits: 1).first.map(String.init)
            let trade = named.flatMap { $0.isEmpty ? nil : $0 } ?? consumes[line.originalQueryID] ?? line.originalQueryID
            return BillEntry(wallet: .unionpay, outTradeNo: trade, kind: .refund, amount: line.amount, reference: line.orderID, fee: fee)
        }
    }

    var billAccount: (trades: String, funds: String) {
        let account = "unionpay:\(configuration.merchantID)"
        return (account, account)
    }

    // MARK: Notifications

    func verified(_ message: InboundMessage) throws -> [ProviderEvent] {
        // Signature (with the certificate the message carries, chained to the configured root and
        // middle), then merId and currency; then the trade it names.
        let notification = try UnionPay.Notification.verify(
            message.body, verifier: configuration.verifier, merchantID: configuration.merchantID)
        var fields = [
            "queryId": notification.queryID, "respCode": notification.respCode.rawValue, "txnType": notification.kind.rawValue,
            "orderId": notification.orderID, "txnAmt": String(notification.amount.minorUnits),
        ]
        if let settleDate = notification.settleDate { fields["settleDate"] = settleDate }
        if let traceNo = notification.traceNo { fields["traceNo"] = traceNo }
        switch notification.kind {
        case .consume:
            return [
                .payment(
                    PaymentReport(
                        outTradeNo: notification.orderID,
                        state: notification.isSuccess
                            ? .paid(amount: notification.amount, transactionID: notification.queryID) : .failed(notification.respMsg),
                        merchantID: notification.merchantID, fields: fields,
                        check: { try notification.check(orderID: notification.orderID, amount: $0) }))
            ]
        case .refund, .undo:
            let named = (notification.reserved ?? "").split(separator: ":", maxSplits: 1).map(String.init)
            guard named.count == 2, Self.transactionNumber(named[1]) == notification.orderID else {
                // Not one of Cashier's refunds (one made in UnionPay's merchant portal names none in
                // reqReserved): acknowledged, and left to reconciliation, which shows it.
                return []
            }
            fields["origQryId"] = notification.originalQueryID ?? ""
            return [
                .refund(
                    RefundReport(
                        outTradeNo: named[0], outRefundNo: named[1],
                        state: notification.isSuccess
                            ? .succeeded(providerRefundID: notification.queryID) : .failed(notification.respMsg),
                        merchantID: notification.merchantID, fields: fields, amountMinor: notification.amount.minorUnits))
            ]
        }
    }

    /// HTTP 200 `ok` once recorded; anything else makes UnionPay send it again.
    /// UnionPay counts an HTTP 200 as received and sends anything else again; the refusals are in
    /// Cashier's error shape.
    func reply(_ outcome: NotificationOutcome) -> NotificationReply {
        switch outcome {
        case .acknowledged: NotificationReply(contentType: "text/plain; charset=utf-8", body: UnionPay.Notification.acknowledgement)
        case .refused: .error(status: 400, code: "refused", message: "another merchant, order, amount or currency")
        case .retry: .error(status: 503, code: "retry", message: "not recorded yet; UnionPay sends it again")
        case .unverified: .error(status: 401, code: "invalid_signature", message: "the signature or its certificate does not verify")
        }
    }

    func metricName(refund: Bool) -> String { refund ? "unionpay_refund" : "unionpay" }
}

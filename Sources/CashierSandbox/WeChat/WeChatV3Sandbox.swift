import Cashier
import CashierArchive
public import CashierCrypto
public import CashierHTTP
import Foundation
public import WeChatPay

/// An offline, stateful simulator of the WeChat Pay API v3 gateway.
///
/// Every request's `Authorization` is checked as WeChat does (known `mchid`, the merchant
/// certificate's `serial_no`, a timestamp within 5 minutes, SHA256withRSA over the canonical
/// request); every response is signed as the platform, with `Wechatpay-Serial` naming either
/// the platform certificate (certificate mode, served encrypted at `/v3/certificates`) or the
/// WeChat Pay public key id (public-key mode). Paid orders are notified with the resource
/// encrypted under the merchant's APIv3 key, on WeChat's retry schedule.
public actor WeChatV3Sandbox {
    /// A merchant the sandbox knows: the public half of its API certificate and its APIv3 key.
    public struct Merchant: Sendable {
        public let mchID: String
        public let certificateSerial: String
        public let publicKey: RSAPublicKey
        public let apiV3Key: String

        public init(mchID: String, certificateSerial: String, publicKey: RSAPublicKey, apiV3Key: String) {
            self.mchID = mchID
            self.certificateSerial = certificateSerial
            self.publicKey = publicKey
            self.apiV3Key = apiV3Key
        }
    }

    /// How responses name the platform key.
    public enum SigningMode: Sendable {
        /// `Wechatpay-Serial` is the platform certificate's serial.
        case certificate
        /// `Wechatpay-Serial` is `PUB_KEY_ID_…` (WeChat Pay public-key mode).
        case publicKey
    }

    /// The platform's certificate (a public test certificate).
    public nonisolated let platformCertificate: X509Certificate
    /// The id of the platform public key in public-key mode.
    public nonisolated let publicKeyID = "PUB_KEY_ID_0110000000SANDBOX0000000000000"
    /// The platform's public key.
    public nonisolated var platformPublicKey: RSAPublicKey { platformKey.publicKey }

    nonisolated let platformKey: RSAPrivateKey
    let merchants: [String: Merchant]
    private let delivery: NotificationDelivery
    private var signingMode: SigningMode = .certificate
    var orders: [String: Order] = [:]
    /// Payments and refunds as they happened, for the trade bill.
    var billEvents: [(at: Date, outTradeNo: String, state: String, refund: Int64, outRefundNo: String)] = []
    /// Bill files waiting to be downloaded, by token.
    private var billFiles: [String: [UInt8]] = [:]
    /// Complaints (消费者投诉 2.0), uploaded media and where each merchant wants complaint notifications.
    var desk = WeChatComplaintDesk()
    /// Merchant transfers (商家转账): bills, balances, limits and their clock.
    var transfers = WeChatTransferDesk()
    var sharing = WeChatProfitSharingDesk()  // Profit sharing (分账): receivers, requests, returns, their clock.

    struct Order: Sendable {
        let mchID: String
        let appID: String
        let tradeType: String
        let description: String
        let notifyURL: String
        let total: Int64
        let currency: String
        let openID: String?
        let attach: String?
        let prepayID: String
        /// What the ledger shows of what the merchant sent (payer IP, expiry, goods).
        var sent: [String: String] = [:]
        /// Partner mode: the sub-merchant (`sub_mchid`) the service provider (``mchID``) placed it for.
        var subMchID: String? = nil
        var subAppID: String? = nil
        var state = "NOTPAY"
        var transactionID: String?
        var successTime: String?
        var refunds: [Refund] = []
        /// What refunds hold: every one but those reported failed.
        var refunded: Int64 { refunds.filter { $0.status == "SUCCESS" || $0.status == "PROCESSING" }.reduce(0) { $0 + $1.amount } }
    }

    struct Refund: Sendable {
        let outRefundNo: String
        let refundID: String
        let amount: Int64
        /// `SUCCESS`, or (once accepted as `PROCESSING`) how it failed: `ABNORMAL`, `CLOSED`.
        var status = "SUCCESS"
    }

    public init(merchants: [Merchant], delivery: NotificationDelivery, address: SandboxAddress = SandboxAddress()) {
        self.address = address
        // The bundled test identity always parses; a failure here is a build defect.
        platformCertificate = try! X509Certificate(pemRepresentation: WeChatSandboxTestIdentity.certificatePEM)
        platformKey = try! RSAPrivateKey(pemRepresentation: WeChatSandboxTestIdentity.privateKeyPEM)
        self.merchants = Dictionary(merchants.map { ($0.mchID, $0) }, uniquingKeysWith: { first, _ in first })
        self.delivery = delivery
    }

    /// Refunds accepted from now on are reported failed afterwards (notification and query).
    private var refundOutcome = SandboxRefundOutcome.succeed

    /// What new refunds do (``SandboxRefundOutcome``).
    public func setRefundOutcome(_ outcome: SandboxRefundOutcome) {
        refundOutcome = outcome
    }

    /// Every trade and refund, as the merchant's books at WeChat would show them.
    public func ledger() -> [SandboxLedgerEntry] {
        orders.sorted { $0.key < $1.key }.map { number, order in
            SandboxLedgerEntry(
                provider: "wechat.v3", out_trade_no: number, state: order.state, paid: order.transactionID != nil,
                amount_minor: order.total, currency: order.currency, transaction_id: order.transactionID,
                refunds: order.refunds.map { .init(out_refund_no: $0.outRefundNo, amount_minor: $0.amount, status: $0.status) },
                sent: order.sent)
        }
    }

    /// Switches how responses and notifications name the platform key.
    public func setSigningMode(_ mode: SigningMode) {
        signingMode = mode
    }

    /// Routes `/v3/…` under `prefix`.
    public nonisolated func register(on router: inout Router, prefix: String) {
        let routes: [(String, String)] = [
            ("GET", "/v3/certificates"),
            ("POST", "/v3/pay/transactions/app"), ("POST", "/v3/pay/transactions/jsapi"), ("POST", "/v3/pay/transactions/native"),
            ("POST", "/v3/pay/transactions/h5"),
            ("GET", "/v3/pay/transactions/out-trade-no/{number}"), ("GET", "/v3/pay/transactions/id/{number}"),
            ("POST", "/v3/pay/transactions/out-trade-no/{number}/close"),
            ("POST", "/v3/refund/domestic/refunds"), ("GET", "/v3/refund/domestic/refunds/{number}"),
            ("GET", "/v3/bill/tradebill"), ("GET", "/v3/bill/fundflowbill"), ("GET", "/v3/billdownload/file"),
            // Partner mode (服务商): the service provider places, queries and closes for its sub-merchants.
            ("POST", "/v3/pay/partner/transactions/app"), ("POST", "/v3/pay/partner/transactions/jsapi"),
            ("POST", "/v3/pay/partner/transactions/native"), ("POST", "/v3/pay/partner/transactions/h5"),
            ("GET", "/v3/pay/partner/transactions/out-trade-no/{number}"), ("GET", "/v3/pay/partner/transactions/id/{number}"),
            ("POST", "/v3/pay/partner/transactions/out-trade-no/{number}/close"),
        ]
        for (method, pattern) in routes {
            router.add(method, prefix + pattern) { request, parameters in
                await self.handle(request, route: pattern, number: parameters.value("number"), prefix: prefix)
            }
        }
        registerComplaints(on: &router, prefix: prefix)
        registerTransfers(on: &router, prefix: prefix)
        registerProfitSharing(on: &router, prefix: prefix)
    }

    // MARK: Merchant certificates

    /// API certificates a merchant applied for besides the one it started with, by merchant and
    /// serial: WeChat Pay accepts the old and the new while the merchant changes over.
    private var otherCertificates: [String: [String: RSAPublicKey]] = [:]
    /// Serials no longer accepted (the merchant revoked them in the merchant platform).
    private var revoked: Set<String> = []

    /// Accepts requests signed with another API certificate of `mchID` (serial `serial`) from now
    /// on, beside the ones it has: what applying for a new certificate does.
    public func addMerchantCertificate(mchID: String, serial: String, publicKey: RSAPublicKey) {
        otherCertificates[mchID, default: [:]][serial] = publicKey
        revoked.remove(serial)
    }

    /// Refuses requests signed with the certificate `serial` from now on (`SIGN_ERROR`): what
    /// revoking the old certificate after a change-over does.
    public func revokeMerchantCertificate(serial: String) {
        revoked.insert(serial)
    }

    /// The key of `merchant`'s certificate `serial`, unless revoked or unknown.
    func certificateKey(_ merchant: Merchant, serial: String) -> RSAPublicKey? {
        guard !revoked.contains(serial) else { return nil }
        if serial == merchant.certificateSerial { return merchant.publicKey }
        return otherCertificates[merchant.mchID]?[serial]
    }

    // MARK: Requests

    private func handle(_ request: HTTPServerRequest, route: String, number: String?, prefix: String) -> HTTPServerResponse {
        let merchant: Merchant
        switch authenticate(request, prefix: prefix, signedBody: String(decoding: request.body, as: UTF8.self)) {
        case .success(let found): merchant = found
        case .failure(let refusal): return refusal.response
        }
        let body = SandboxControl.object(request) ?? [:]
        // A partner call names the sub-merchant: in the query (sub_mchid) or the body.
        let partner = route.hasPrefix("/v3/pay/partner/")
        let subMchID = partner ? (request.queryValue("sub_mchid") ?? body["sub_mchid"] as? String) : nil
        if partner, subMchID == nil { return error(400, "PARAM_ERROR", "服务商模式下sub_mchid必填") }
        if !partner, route.hasPrefix("/v3/pay/"), let number,
            orders[number]?.subMchID != nil || orders.first(where: { $0.value.transactionID == number })?.value.subMchID != nil
        {
            return error(404, "ORDER_NOT_EXIST", "订单不存在 (a partner order is read through /v3/pay/partner/…)")
        }
        if partner, let number, let order = orders[number] ?? orders.first(where: { $0.value.transactionID == number })?.value,
            order.subMchID != subMchID || order.mchID != merchant.mchID
        {
            return error(404, "ORDER_NOT_EXIST", "订单不存在")
        }
        switch route.replacingOccurrences(of: "/v3/pay/partner/", with: "/v3/pay/") {
        case "/v3/certificates": return certificates(merchant)
        case "/v3/pay/transactions/out-trade-no/{number}/close": return close(number ?? "")
        case "/v3/pay/transactions/out-trade-no/{number}": return query(number ?? "", byTransactionID: false)
        case "/v3/pay/transactions/id/{number}": return query(number ?? "", byTransactionID: true)
        case "/v3/refund/domestic/refunds": return refund(body)
        case "/v3/refund/domestic/refunds/{number}": return refundQuery(number ?? "")
        case "/v3/bill/tradebill": return tradeBill(request, merchant: merchant, prefix: prefix)
        case "/v3/bill/fundflowbill": return fundFlowBill(request, merchant: merchant, prefix: prefix)
        case "/v3/billdownload/file": return billFile(request.queryValue("token") ?? "")
        default: return prepay(String(route.split(separator: "/").last ?? ""), body, merchant)
        }
    }

    private func certificates(_ merchant: Merchant) -> HTTPServerResponse {
        let nonce = SecureRandom.alphanumeric(count: 12)
        guard let key = try? AESGCMKey(Array(merchant.apiV3Key.utf8)),
            let box = try? key.seal(
                Array(platformCertificate.pemRepresentation.utf8), iv: Array(nonce.utf8), authenticating: Array("certificate".utf8))
        else { return error(500, "SYSTEM_ERROR", "系统错误") }
        let formatter = ISO8601DateFormatter()
        let entry: [String: Any] = [
            "serial_no": platformCertificate.serialNumberHex, "effective_time": formatter.string(from: platformCertificate.notValidBefore),
            "expire_time": formatter.string(from: platformCertificate.notValidAfter),
            "encrypt_certificate": [
                "algorithm": "AEAD_AES_256_GCM", "nonce": nonce, "associated_data": "certificate",
                "ciphertext": Base64.encode(box.combined),
            ],
        ]
        return signed(200, ["data": [entry]])
    }

    private func prepay(_ kind: String, _ body: [String: Any], _ merchant: Merchant) -> HTTPServerResponse {
        if let refused = amountProblem(body, [("total", "总金额")]) { return refused }
        let partner = body["sp_mchid"] != nil
        guard (partner ? body["sp_mchid"] : body["mchid"]) as? String == merchant.mchID else {
            return error(400, "PARAM_ERROR", "mchid与请求头中的商户号不一致")
        }
        let subMchID = body["sub_mchid"] as? String
        guard !partner || subMchID?.isEmpty == false else { return error(400, "PARAM_ERROR", "服务商模式下sub_mchid必填") }
        guard let appID = (partner ? body["sp_appid"] : body["appid"]) as? String, let description = body["description"] as? String,
            let outTradeNo = body["out_trade_no"] as? String, let notifyURL = body["notify_url"] as? String,
            let amount = body["amount"] as? [String: Any], let total = amount["total"].flatMap(JSONNumber.writtenInteger), total > 0
        else { return error(400, "PARAM_ERROR", "缺少必要参数或参数格式错误") }
        let payer = body["payer"] as? [String: Any]
        let openID = (payer?["openid"] ?? payer?["sp_openid"] ?? payer?["sub_openid"]) as? String
        if kind == "jsapi", openID == nil { return error(400, "PARAM_ERROR", "JSAPI下单必须传payer.openid") }
        if let existing = orders[outTradeNo] {
            if existing.state == "SUCCESS" || existing.state == "REFUND" { return error(403, "ORDERPAID", "该订单已支付") }
            if existing.state == "CLOSED" { return error(400, "ORDER_CLOSED", "该订单已关闭") }
            guard existing.total == total, existing.tradeType == kind.uppercased() else {
                return error(403, "OUT_TRADE_NO_USED", "商户订单号重复")
            }
            return signed(200, prepayAnswer(existing))
        }
        let order = Order(
            mchID: merchant.mchID, appID: appID, tradeType: kind.uppercased(), description: description, notifyURL: notifyURL, total: total,
            currency: amount["currency"] as? String ?? "CNY", openID: openID, attach: body["attach"] as? String,
            prepayID: "wx" + SecureRandom.string(count: 30, alphabet: "0123456789abcdef"),
            sent: Self.sentFields(body), subMchID: subMchID, subAppID: body["sub_appid"] as? String)
        orders[outTradeNo] = order
        return signed(200, prepayAnswer(order))
    }

    /// `scene_info.payer_client_ip`, `time_expire`, `attach` and `detail` (as compact JSON), when sent.
    static func sentFields(_ body: [String: Any]) -> [String: String] {
        var sent: [String: String] = [:]
        if let ip = (body["scene_info"] as? [String: Any])?["payer_client_ip"] as? String { sent["payer_client_ip"] = ip }
        if let expiry = body["time_expire"] as? String { sent["time_expire"] = expiry }
        if let attach = body["attach"] as? String { sent["attach"] = attach }
        if (body["settle_info"] as? [String: Any])?["profit_sharing"] as? Bool == true { sent["profit_sharing"] = "true" }
        if let detail = body["detail"], let data = try? JSONSerialization.data(withJSONObject: detail, options: [.sortedKeys]) {
            sent["detail"] = String(decoding: data, as: UTF8.self)
        }
        return sent
    }

    private func prepayAnswer(_ order: Order) -> [String: Any] {
        switch order.tradeType {
        case "NATIVE": ["code_url": WeChatV2Sandbox.codeURL(order.prepayID)]
        case "H5":
            [
                "h5_url": address.value.map { $0 + "sandbox/wechat/h5?prepay_id=\(order.prepayID)" }
                    ?? "https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=\(order.prepayID)"
            ]
        default: ["prepay_id": order.prepayID]
        }
    }

    /// Where the sandbox listens: H5 payers are sent to its cashier page.
    private nonisolated let address: SandboxAddress

    /// A trade as the payer pages show it, by out_trade_no or prepay_id.
    /// What WeChat's browser checks before it shows the payer a JSAPI payment: a JSAPI order
    /// placed under that `appId`, and `paySign` (SHA256withRSA over `appId\ntimeStamp\nnonceStr\npackage\n`)
    /// made with the merchant's key. - Returns: the order's `out_trade_no`, `nil` when it does not verify.
    public func jsapiOrder(_ invocation: WeChatPay.JSAPIParameters) -> String? {
        guard let prepayID = invocation.package.hasPrefix("prepay_id=") ? String(invocation.package.dropFirst(10)) : nil,
            let (number, order) = orders.first(where: { $0.value.prepayID == prepayID }), order.tradeType == "JSAPI",
            order.appID == invocation.appId, invocation.signType == "RSA", let merchant = merchants[order.mchID],
            let signature = try? Base64.decode(invocation.paySign)
        else { return nil }
        let message = [invocation.appId, invocation.timeStamp, invocation.nonceStr, invocation.package].map { $0 + "\n" }.joined()
        return merchant.publicKey.isValidSignature(signature, for: Array(message.utf8), scheme: .insecurePKCS1v1_5SHA256) ? number : nil
    }

    public func trade(outTradeNo: String? = nil, prepayID: String? = nil) -> SandboxTrade? {
        guard let (number, order) = orders.first(where: { $0.key == outTradeNo || $0.value.prepayID == prepayID }) else { return nil }
        return SandboxTrade(
            outTradeNo: number, total: Money(minorUnits: order.total, currency: (try? Currency(code: order.currency)) ?? .cny),
            subject: order.description, merchant: order.mchID,
            codeURL: order.tradeType == "NATIVE" ? WeChatV2Sandbox.codeURL(order.prepayID) : nil, state: order.state)
    }

    private func transaction(_ outTradeNo: String, _ order: Order) -> [String: Any] {
        var object: [String: Any] = [
            "out_trade_no": outTradeNo, "trade_type": order.tradeType, "trade_state": order.state,
            "trade_state_desc": order.state == "SUCCESS" ? "支付成功" : order.state,
            "amount": ["total": order.total, "currency": order.currency, "payer_total": order.total, "payer_currency": order.currency],
        ]
        if let transactionID = order.transactionID {
            object["transaction_id"] = transactionID
            object["success_time"] = order.successTime ?? ""
            object["bank_type"] = "OTHERS"
            object["payer"] = ["openid": order.openID ?? "oSandboxPayer000000000000000"]
        }
        if let attach = order.attach { object["attach"] = attach }
        if let sub = order.subMchID {
            // A partner transaction names both merchants, and the payer under the service provider's app.
            object["sp_appid"] = order.appID
            object["sp_mchid"] = order.mchID
            object["sub_mchid"] = sub
            if let subAppID = order.subAppID { object["sub_appid"] = subAppID }
            if order.transactionID != nil { object["payer"] = ["sp_openid": order.openID ?? "oSandboxPayer000000000000000"] }
        } else {
            object["appid"] = order.appID
            object["mchid"] = order.mchID
        }
        return object
    }

    private func query(_ number: String, byTransactionID: Bool) -> HTTPServerResponse {
        let found = byTransactionID ? orders.first { $0.value.transactionID == number } : orders[number].map { (key: number, value: $0) }
        guard let found else { return error(404, "ORDER_NOT_EXIST", "订单不存在") }
        return signed(200, transaction(found.key, found.value))
    }

    private func close(_ number: String) -> HTTPServerResponse {
        guard var order = orders[number] else { return error(404, "ORDER_NOT_EXIST", "订单不存在") }
        guard order.state != "SUCCESS" && order.state != "REFUND" else { return error(400, "ORDERPAID", "订单已支付") }
        order.state = "CLOSED"
        orders[number] = order
        return signed(204, nil)
    }

    private func refund(_ body: [String: Any]) -> HTTPServerResponse {
        if let refused = amountProblem(body, [("refund", "退款金额"), ("total", "原订单金额")]) { return refused }
        guard
            let number = body["out_trade_no"] as? String
                ?? (body["transaction_id"] as? String).flatMap({ id in orders.first { $0.value.transactionID == id }?.key }),
            var order = orders[number]
        else { return error(404, "RESOURCE_NOT_EXISTS", "订单不存在") }
        guard order.state == "SUCCESS" || order.state == "REFUND" else { return error(403, "NOT_ENOUGH", "订单未支付") }
        guard let outRefundNo = body["out_refund_no"] as? String, let amount = body["amount"] as? [String: Any],
            let refund = amount["refund"].flatMap(JSONNumber.writtenInteger),
            let total = amount["total"].flatMap(JSONNumber.writtenInteger),
            refund > 0, total == order.total
        else { return error(400, "PARAM_ERROR", "退款金额或订单金额与原订单不一致") }
        if let existing = order.refunds.first(where: { $0.outRefundNo == outRefundNo }) {
            return signed(200, refundAnswer(number, order, existing))
        }
        guard order.refunded + refund <= order.total else { return error(400, "INVALID_REQUEST", "退款金额大于支付金额") }
        if let refused = profitSharingRefundProblem(order, refund) { return refused }
        if refundOutcome == .refuse { return error(403, "NOT_ENOUGH", "基本账户余额不足，请充值后重新发起") }
        var record = Refund(outRefundNo: outRefundNo, refundID: Self.refundID(), amount: refund)
        let failure = refundOutcome.v3Status
        if let failure { record.status = failure } else { billEvents.append((Date(), number, "REFUND", refund, outRefundNo)) }
        order.refunds.append(record)
        order.state = "REFUND"
        orders[number] = order
        if let notifyURL = body["notify_url"] as? String { announceRefund(number, order, record, url: notifyURL) }
        if failure == nil { noteRefund(of: number) }
        // A refund that fails later is first accepted as PROCESSING.
        var answer = refundAnswer(number, order, record)
        if failure != nil { answer["status"] = "PROCESSING" }
        return signed(200, answer)
    }

    /// Sends `REFUND.{status}` for `record` of order `number` to `url`, filed under its `out_refund_no`.
    func announceRefund(_ number: String, _ order: Order, _ record: Refund, url: String) {
        guard let merchant = merchants[order.mchID] else { return }
        var resource = refundAnswer(number, order, record)
        if let sub = order.subMchID {
            resource["sp_mchid"] = order.mchID
            resource["sub_mchid"] = sub
        } else {
            resource["mchid"] = order.mchID
        }
        let succeeded = record.status == "SUCCESS"
        resource["refund_status"] = record.status
        if succeeded { resource["success_time"] = BeijingTime.string(from: Date(), .rfc3339) }
        resource["user_received_account"] = "支付用户零钱"
        deliverEvent(
            "REFUND.\(record.status)", summary: succeeded ? "退款成功" : "退款异常", originalType: "refund", resource: resource,
            key: record.outRefundNo, url: url, merchant: merchant)
    }

    private func refundAnswer(_ number: String, _ order: Order, _ refund: Refund) -> [String: Any] {
        [
            "refund_id": refund.refundID, "out_refund_no": refund.outRefundNo, "transaction_id": order.transactionID ?? "",
            "out_trade_no": number, "status": refund.status, "channel": "ORIGINAL",
            "amount": [
                "refund": refund.amount, "total": order.total, "currency": order.currency, "payer_refund": refund.amount,
                "payer_total": order.total,
            ],
        ]
    }

    /// A new refund's `refund_id`, as WeChat numbers them.
    static func refundID() -> String { "50" + SecureRandom.string(count: 28, alphabet: "0123456789") }

    private func refundQuery(_ outRefundNo: String) -> HTTPServerResponse {
        for (number, order) in orders {
            if let refund = order.refunds.first(where: { $0.outRefundNo == outRefundNo }) {
                return signed(200, refundAnswer(number, order, refund))
            }
        }
        return error(404, "RESOURCE_NOT_EXISTS", "退款单不存在")
    }

    // MARK: Bills

    private func tradeBill(_ request: HTTPServerRequest, merchant: Merchant, prefix: String) -> HTTPServerResponse {
        guard let date = request.queryValue("bill_date"), date.count == 10 else { return error(400, "PARAM_ERROR", "bill_date格式错误") }
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let time = BeijingTime.formatter("yyyy-MM-dd HH:mm:ss")
        let rows = billEvents.filter { day.string(from: $0.at) == date }.compactMap { event -> WeChatPay.Bill.Row? in
            guard let order = orders[event.outTradeNo], order.mchID == merchant.mchID, let currency = try? Currency(code: order.currency)
            else { return nil }
            return WeChatPay.Bill.Row(
                tradeTime: time.string(from: event.at), appID: order.appID, mchID: order.mchID, transactionID: order.transactionID ?? "",
                outTradeNo: event.outTradeNo, tradeState: event.state, amount: Money(minorUnits: order.total, currency: currency),
                refundAmount: Money(minorUnits: event.refund, currency: currency), outRefundNo: event.outRefundNo,
                subject: order.description,
                fee: Money(
                    minorUnits: event.state == "REFUND" ? -SandboxFees.fee(event.refund) : SandboxFees.fee(order.total), currency: currency)
            )
        }
        guard !rows.isEmpty else { return error(400, "NO_STATEMENT_EXIST", "要下载的账单不存在") }
        return billListing(WeChatPay.Bill(rows: rows).text, request, prefix: prefix)
    }

    /// `/v3/bill/fundflowbill`: the basic account's movements that day (payments in, fees out,
    /// refunds out, fees back).
    private func fundFlowBill(_ request: HTTPServerRequest, merchant: Merchant, prefix: String) -> HTTPServerResponse {
        guard let date = request.queryValue("bill_date"), date.count == 10 else { return error(400, "PARAM_ERROR", "bill_date格式错误") }
        guard (request.queryValue("account_type") ?? "BASIC") == "BASIC" else {
            return error(400, "NO_STATEMENT_EXIST", "要下载的账单不存在 (the sandbox keeps the BASIC account only)")
        }
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let movements = billEvents.filter { day.string(from: $0.at) == date }.compactMap { event -> SandboxFees.Movement? in
            guard let order = orders[event.outTradeNo], order.mchID == merchant.mchID else { return nil }
            let refund = order.refunds.first { $0.outRefundNo == event.outRefundNo }
            return event.state == "REFUND"
                ? .init(
                    at: event.at, payment: false, amount: event.refund, businessID: refund?.refundID ?? "", reference: event.outRefundNo)
                : .init(
                    at: event.at, payment: true, amount: order.total, businessID: order.transactionID ?? "", reference: event.outTradeNo)
        }
        guard !movements.isEmpty else { return error(400, "NO_STATEMENT_EXIST", "要下载的账单不存在") }
        return billListing(SandboxFees.wechatFundFlow(movements).text, request, prefix: prefix)
    }

    /// A bill's signed listing: its SHA1 (over the file as served: gzipped for `tar_type=GZIP`)
    /// and a download link that works once.
    func billListing(_ text: String, _ request: HTTPServerRequest, prefix: String) -> HTTPServerResponse {
        let plain = Array(text.utf8)
        let gzipped = request.queryValue("tar_type") == "GZIP"
        let file = gzipped ? ((try? Gzip.compress(Data(plain))).map { Array($0) } ?? plain) : plain
        let token = SecureRandom.alphanumeric(count: 32)
        billFiles[token] = file
        let host = request.headers["Host"] ?? "127.0.0.1"
        return signed(
            200,
            [
                "hash_type": "SHA1", "hash_value": Hex.encode(DigestAlgorithm.insecureSHA1.hash(file)),
                "download_url": "http://\(host)\(prefix)/v3/billdownload/file?token=\(token)",
            ])
    }

    /// The bill file itself; like WeChat's, it is not signed: its SHA1 came in the signed listing.
    private func billFile(_ token: String) -> HTTPServerResponse {
        guard let file = billFiles.removeValue(forKey: token) else { return error(404, "RESOURCE_NOT_EXISTS", "账单文件不存在或已过期") }
        let gzipped = file.starts(with: [0x1F, 0x8B])
        return HTTPServerResponse(
            status: 200, headers: ["Content-Type": gzipped ? "application/gzip" : "text/plain; charset=utf-8"], body: file)
    }

    // MARK: The payer

    /// Acts as the payer: pay, cancel or fail an order. Returns its `trade_state`, or `nil` if unknown.
    @discardableResult
    public func pay(outTradeNo: String, outcome: WeChatV2Sandbox.Outcome) -> String? {
        guard var order = orders[outTradeNo] else { return nil }
        guard order.state == "NOTPAY" || order.state == "PAYERROR" else { return order.state }
        switch outcome {
        case .cancel: return order.state
        case .fail: order.state = "PAYERROR"
        case .success:
            order.state = "SUCCESS"
            order.transactionID = "42000" + SecureRandom.string(count: 23, alphabet: "0123456789")
            order.successTime = BeijingTime.string(from: Date(), .rfc3339)
            billEvents.append((Date(), outTradeNo, "SUCCESS", 0, ""))
        }
        orders[outTradeNo] = order
        if outcome == .success, let merchant = merchants[order.mchID] { notify(outTradeNo, order, merchant) }
        return order.state
    }

    private func notify(_ outTradeNo: String, _ order: Order, _ merchant: Merchant) {
        deliverEvent(
            "TRANSACTION.SUCCESS", summary: "支付成功", originalType: "transaction", resource: transaction(outTradeNo, order), key: outTradeNo,
            url: order.notifyURL, merchant: merchant)
    }

    /// Encrypts `resource` under the merchant's APIv3 key, signs the envelope as the platform,
    /// and delivers it on WeChat's schedule until the merchant answers 2xx.
    func deliverEvent(
        _ event: String, summary: String, originalType: String, resource: [String: Any], key: String, url: String, merchant: Merchant
    ) {
        let nonce = SecureRandom.alphanumeric(count: 12)
        guard let plaintext = try? JSONSerialization.data(withJSONObject: resource, options: [.sortedKeys]),
            let aes = try? AESGCMKey(Array(merchant.apiV3Key.utf8)),
            let box = try? aes.seal(plaintext, iv: Array(nonce.utf8), authenticating: Array(originalType.utf8))
        else { return }
        let envelope: [String: Any] = [
            "id": UUID().uuidString.lowercased(), "create_time": BeijingTime.string(from: Date(), .rfc3339),
            "resource_type": "encrypt-resource", "event_type": event, "summary": summary,
            "resource": [
                "original_type": originalType, "algorithm": "AEAD_AES_256_GCM", "ciphertext": Base64.encode(box.combined),
                "associated_data": originalType, "nonce": nonce,
            ],
        ]
        guard let body = try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys]) else { return }
        delivery.deliver(
            key: key, url: url, body: body, contentType: "application/json", headers: signatureHeaders(body),
            schedule: NotificationDelivery.wechatSchedule
        ) { response in
            (200..<300).contains(response.status)
        }
    }

    // MARK: Signing

    private func signatureHeaders(_ body: Data) -> HTTPHeaders {
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let nonce = SecureRandom.alphanumeric(count: 32)
        var message = Array("\(timestamp)\n\(nonce)\n".utf8) + Array(body)
        message.append(UInt8(ascii: "\n"))
        let signature = (try? platformKey.signature(for: message, scheme: .insecurePKCS1v1_5SHA256)).map { Base64.encode($0) } ?? ""
        return [
            "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": nonce, "Wechatpay-Signature": signature,
            "Wechatpay-Serial": signingMode == .certificate ? platformCertificate.serialNumberHex : publicKeyID,
            "Wechatpay-Signature-Type": "WECHATPAY2-SHA256-RSA2048",
        ]
    }

    func signed(_ status: Int, _ object: [String: Any]?) -> HTTPServerResponse {
        let body =
            object.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .withoutEscapingSlashes]) } ?? Data()
        var headers = signatureHeaders(body)
        if object != nil { headers.add("Content-Type", "application/json") }
        headers.add("Request-ID", UUID().uuidString)
        return HTTPServerResponse(status: status, headers: headers, body: Array(body))
    }

    func error(_ status: Int, _ code: String, _ message: String, detail: [String: Any]? = nil) -> HTTPServerResponse {
        signed(status, ["code": code, "message": message].merging(detail.map { ["detail": $0] } ?? [:]) { $1 })
    }

    /// WeChat Pay's refusal of an amount that is not written as a whole number of fen — `0.01`
    /// (yuan where fen were meant), `12.5`, `110.00000000000001`, `"100"`, `true` — naming the
    /// field as it does: `nil` when every one of `fields` (`(key, its name in the message)`) under
    /// `body.amount` that is given is a whole number.
    private func amountProblem(_ body: [String: Any], _ fields: [(String, String)]) -> HTTPServerResponse? {
        guard let amount = body["amount"] as? [String: Any] else { return nil }
        for (key, name) in fields {
            guard let value = amount[key], JSONNumber.writtenInteger(value) == nil else { continue }
            return error(
                400, "PARAM_ERROR", "无法将 JSON 输入源“/body/amount/\(key)”映射到目标字段“\(name)”中，此字段需要一个合法的 64 位有符号整数",
                detail: ["location": "body", "value": value])
        }
        return nil
    }
}

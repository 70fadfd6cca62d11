import Alipay
import Cashier
public import CashierCrypto
public import CashierHTTP
import CashierWeb
import Foundation

/// An offline, stateful simulator of Alipay's `gateway.do`.
///
/// Requests are accepted as GET, POST form, or the query-plus-form split the official SDKs send;
/// each is verified with the app's public key (keeping `sign_type`, as Alipay signs requests).
/// Answers carry Alipay's codes (10000; 40004 with `ACQ.TRADE_NOT_EXIST`, `ACQ.TRADE_HAS_SUCCESS`,
/// `ACQ.TRADE_HAS_CLOSE`, `ACQ.TRADE_STATUS_ERROR`; 40002 `isv.invalid-signature`) and are signed
/// with the sandbox's own Alipay key over the response node. Paid trades are notified on
/// Alipay's retry schedule.
public actor AlipaySandbox {
    /// Alipay's retry intervals after the first attempt: 4m, 10m, 10m, 1h, 2h, 6h, 15h.
    public static let schedule: [Duration] = [240, 600, 600, 3600, 7200, 21600, 54000].map { .seconds($0) }

    /// The key the sandbox signs answers and notifications with; give merchants its public half.
    public nonisolated let alipayPublicKey: RSAPublicKey
    nonisolated let alipayKey: RSAPrivateKey
    let apps: [String: RSAPublicKey]
    let delivery: NotificationDelivery
    /// The sandbox's seller (partner) id.
    public nonisolated let sellerID = "2088000000000001"

    struct Trade: Sendable {
        let appID: String
        let subject: String
        let total: Money
        let notifyURL: String?
        var status = "WAIT_BUYER_PAY"
        var tradeNo: String
        var refunds: [String: Refund] = [:]
        let created = Date()
        var paid: Date?
        /// What the ledger shows of what the merchant sent (expiry, passback, goods, the payment code).
        var sent: [String: String] = [:]
        /// A payment-code trade waiting for the payer's confirmation: paid from this moment (`nil`: never).
        var payableAt: Date?
        /// Cancelled after it was paid: the money went back to the payer.
        var cancelledAfterPayment = false
        /// Placed by an ISV with a merchant's `app_auth_token`: the merchant's app id (`auth_app_id`).
        var authAppID: String? = nil
    }

    /// ISV authorisations: `app_auth_token` → the app id of the merchant that granted it.
    private var appAuthTokens: [String: String] = [:]

    /// Records that the merchant behind `merchantAppID` authorised an ISV, as the merchant does in
    /// Alipay's console (`alipay.open.auth.token.app`): calls with the token act for that merchant,
    /// and its trades' notifications name it as `auth_app_id`.
    public func grantAppAuthToken(_ token: String, merchantAppID: String) {
        appAuthTokens[token] = merchantAppID
    }

    /// The merchant an `app_auth_token` acts for: `.success(nil)` without one, a failure for an unknown one.
    private func authorizer(_ parameters: [String: String]) -> Result<String?, AppAuthError> {
        guard let token = parameters["app_auth_token"] else { return .success(nil) }
        guard let merchant = appAuthTokens[token] else { return .failure(AppAuthError()) }
        return .success(merchant)
    }

    struct AppAuthError: Error {}

    /// `timeout_express`, `time_expire`, `passback_params`, `goods_detail` (compact JSON) and
    /// `auth_code`, when the merchant sent them.
    static func sentFields(_ biz: [String: Any]) -> [String: String] {
        var sent: [String: String] = [:]
        for name in ["timeout_express", "time_expire", "passback_params", "auth_code", "quit_url", "product_code"] {
            if let value = biz[name] as? String { sent[name] = value }
        }
        if let goods = biz["goods_detail"], let data = try? JSONSerialization.data(withJSONObject: goods, options: [.sortedKeys]) {
            sent["goods_detail"] = String(decoding: data, as: UTF8.self)
        }
        // extend_params.royalty_freeze: the money stays frozen for alipay.trade.order.settle.
        if let extend = biz["extend_params"] as? [String: Any], isTrue(extend["royalty_freeze"]) { sent["royalty_freeze"] = "true" }
        return sent
    }

    struct Refund: Sendable {
        let amount: Money
        let date = Date()
        /// Accepted, then failed (the money did not reach the payer): no `refund_status` when queried.
        var failed = false
    }

    /// What new refunds do (``SandboxRefundOutcome``).
    private var refundOutcome = SandboxRefundOutcome.succeed
    /// How long a sandbox payer takes to confirm on the phone (codes ending `1111`, ``SandboxCounterCode``).
    var passwordDelay = SandboxCounterCode.defaultPasswordDelay

    public func setRefundOutcome(_ outcome: SandboxRefundOutcome) {
        refundOutcome = outcome
    }

    /// Every trade and refund, as the merchant's books at Alipay would show them.
    public func ledger() -> [SandboxLedgerEntry] {
        trades.sorted { $0.key < $1.key }.map { number, trade in
            SandboxLedgerEntry(
                provider: "alipay", out_trade_no: number, state: trade.status, paid: trade.paid != nil && !trade.cancelledAfterPayment,
                amount_minor: trade.total.minorUnits, currency: trade.total.currency.code,
                transaction_id: trade.paid == nil ? nil : trade.tradeNo,
                refunds: trade.refunds.sorted { $0.key < $1.key }.map {
                    .init(out_refund_no: $0.key, amount_minor: $0.value.amount.minorUnits, status: $0.value.failed ? "FAILED" : "SUCCESS")
                }, sent: trade.sent)
        }
    }

    var trades: [String: Trade] = [:]
    /// Transfers to Alipay accounts by app and `out_biz_no`, and what each app has left to transfer from.
    var transfers: [String: Transfer] = [:]
    var transferBalances: [String: Int64] = [:]
    /// Royalty relations, settles, application gateways (``AlipayRoyaltyDesk``).
    var royalty = AlipayRoyaltyDesk()
    /// Agreements, their periods and charges (``AlipayAgreementDesk``).
    var agreementDesk = AlipayAgreementDesk()
    /// Certificate mode: the SN of the certificate issued for the sandbox's key, put in every
    /// answer as `alipay_cert_sn` (Alipay does so for apps in certificate mode).
    private var alipayCertSN: String?
    /// Bill download links: token → bill date; each works for 30 seconds, as Alipay's do.
    var billLinks: [String: (date: String, type: String, expires: ContinuousClock.Instant)] = [:]

    /// The key every sandbox in this process signs with as Alipay, made on first use. A fresh
    /// RSA key costs about 0.4 s of CPU here, on whichever thread asks: made per sandbox, the
    /// dozens a test run starts at once held Swift's cooperative threads (and so every
    /// in-process server's handlers) for tens of seconds.
    static let processKey = try! RSAPrivateKey(generatingKeySizeInBits: 2048)

    /// - Parameter apps: app ids and their public keys (what the merchant uploaded to Alipay).
    public init(apps: [String: RSAPublicKey], delivery: NotificationDelivery) {
        // Its public half is what merchants configure as "Alipay's public key".
        alipayKey = Self.processKey
        alipayPublicKey = alipayKey.publicKey
        self.apps = apps
        self.delivery = delivery
    }

    /// Routes `GET` and `POST` `path` (e.g. `/alipay/gateway.do`).
    public nonisolated func register(on router: inout Router, path: String) {
        for method in ["GET", "POST"] {
            router.add(method, path) { request, _ in
                var parameters: [String: String] = [:]
                for item in request.query { parameters[item.name] = item.value }
                if !request.body.isEmpty, let form = try? Alipay.FormBody.parse(request.body) {
                    parameters.merge(form) { _, body in body }
                }
                if let method = parameters["method"], method == "alipay.trade.wap.pay" || method == "alipay.trade.page.pay" {
                    return await self.cashierPage(parameters, cashierPath: path.replacingOccurrences(of: "gateway.do", with: "cashier"))
                }
                if parameters["method"] == "alipay.user.agreement.page.sign" {
                    return await self.agreementSignPage(
                        parameters, actionPath: path.replacingOccurrences(of: "gateway.do", with: "agreement"))
                }
                let answer = await self.handle(parameters, host: request.headers["Host"])
                return .text(answer, contentType: "application/json;charset=utf-8")
            }
        }
        router.add("GET", path.replacingOccurrences(of: "gateway.do", with: "bill")) { request, _ in
            await self.billFile(token: request.queryValue("token") ?? "")
        }
        router.add("POST", path.replacingOccurrences(of: "gateway.do", with: "cashier")) { request, _ in
            await self.cashierAction((try? Alipay.FormBody.parse(request.body)) ?? [:])
        }
        registerConsole(on: &router)
        registerRoyalty(on: &router)
        registerAgreements(on: &router, path: path)
    }

    func handle(_ parameters: [String: String], host: String? = nil) -> String {
        let method = parameters["method", default: ""]
        let nodeName = method.isEmpty ? "error_response" : method.replacingOccurrences(of: ".", with: "_") + "_response"
        guard let appID = parameters["app_id"], let appKey = apps[appID] else {
            return signed("error_response", failure("40002", "Invalid Arguments", "isv.invalid-app-id", "无效的AppID参数"))
        }
        guard let sign = parameters["sign"], let type = Alipay.SignType(rawValue: parameters["sign_type"] ?? "RSA2"),
            Alipay.Signer.isValidSignature(sign, content: Alipay.Signer.content(parameters), publicKey: appKey, type: type)
        else {
            return signed(nodeName, failure("40002", "Invalid Arguments", "isv.invalid-signature", "验签出错，建议检查签名字符串或签名私钥与应用公钥是否匹配"))
        }
        let biz = (parameters["biz_content"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        guard case .success(let authApp) = authorizer(parameters) else {
            return signed(nodeName, failure("20001", "Insufficient Token Permissions", "aop.invalid-app-auth-token", "无效的应用授权令牌"))
        }
        // An ISV reads and changes only the trades of the merchant whose token it brings.
        if let number = biz["out_trade_no"] as? String, let trade = trades[number], trade.authAppID != authApp {
            return signed(nodeName, notFound())
        }
        currentAuthApp = authApp
        defer { currentAuthApp = nil }
        switch method {
        case "alipay.trade.precreate": return signed(nodeName, precreate(biz, appID: appID, notifyURL: parameters["notify_url"]))
        case "alipay.trade.pay" where biz["agreement_params"] != nil:
            return signed(nodeName, agreementPay(biz, appID: appID, notifyURL: parameters["notify_url"]))
        case "alipay.trade.pay": return signed(nodeName, barcodePay(biz, appID: appID, notifyURL: parameters["notify_url"]))
        case "alipay.user.agreement.query": return signed(nodeName, agreementQuery(biz, appID: appID))
        case "alipay.user.agreement.unsign":
            return signed(nodeName, agreementUnsign(biz, appID: appID, notifyURL: parameters["notify_url"]))
        case "alipay.user.agreement.executionplan.modify": return signed(nodeName, executionPlanModify(biz, appID: appID))
        case "alipay.trade.cancel": return signed(nodeName, cancel(biz))
        case "alipay.trade.query": return signed(nodeName, query(biz))
        case "alipay.trade.close": return signed(nodeName, close(biz))
        case "alipay.trade.refund": return signed(nodeName, refund(biz))
        case "alipay.trade.fastpay.refund.query": return signed(nodeName, refundQuery(biz))
        case "alipay.fund.trans.uni.transfer": return signed(nodeName, uniTransfer(biz, appID: appID))
        case "alipay.fund.trans.common.query": return signed(nodeName, transferQuery(biz, appID: appID))
        case "alipay.trade.royalty.relation.bind": return signed(nodeName, relationBind(biz, appID: appID, bind: true))
        case "alipay.trade.royalty.relation.unbind": return signed(nodeName, relationBind(biz, appID: appID, bind: false))
        case "alipay.trade.royalty.relation.batchquery": return signed(nodeName, relationBatchQuery(biz, appID: appID))
        case "alipay.trade.order.settle": return signed(nodeName, orderSettle(biz, appID: appID))
        case "alipay.trade.order.settle.query": return signed(nodeName, settleQuery(biz, appID: appID))
        case "alipay.trade.order.onsettle.query": return signed(nodeName, onsettleQuery(biz, appID: appID))
        case "alipay.fund.account.query": return signed(nodeName, fundAccountQuery(biz, appID: appID))
        case "alipay.data.dataservice.bill.downloadurl.query":
            return signed(nodeName, billLink(biz, host: host ?? "127.0.0.1"))
        default: return signed(nodeName, failure("40004", "Business Failed", "isv.missing-method", "不支持的接口 \(method)"))
        }
    }

    /// The merchant the call being handled acts for (an ISV's `app_auth_token`), for the trades it creates.
    var currentAuthApp: String?

    func success(_ fields: [String: Any]) -> [String: Any] {
        fields.merging(["code": "10000", "msg": "Success"]) { first, _ in first }
    }

    func failure(_ code: String, _ message: String, _ subCode: String, _ subMessage: String) -> [String: Any] {
        ["code": code, "msg": message, "sub_code": subCode, "sub_msg": subMessage]
    }

    func notFound() -> [String: Any] {
        failure("40004", "Business Failed", "ACQ.TRADE_NOT_EXIST", "交易不存在")
    }

    /// The answer text: the node, exactly as signed, then the signature.
    func signed(_ nodeName: String, _ node: [String: Any]) -> String {
        let nodeText = String(
            decoding: (try? JSONSerialization.data(withJSONObject: node, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        let sign = (try? alipayKey.signature(for: nodeText, scheme: .insecurePKCS1v1_5SHA256)).map { Base64.encode($0) } ?? ""
        let certificate = alipayCertSN.map { ",\"alipay_cert_sn\":\"\($0)\"" } ?? ""
        return "{\"\(nodeName)\":\(nodeText)\(certificate),\"sign\":\"\(sign)\"}"
    }

    /// Puts `alipay_cert_sn` in every answer from now on (`nil`: public-key mode again). Issue a
    /// certificate for ``alipayPublicKey`` and give its SN here and the certificate to the client.
    public func useCertificate(sn: String?) {
        alipayCertSN = sn
    }

    // MARK: Methods

    private func precreate(_ biz: [String: Any], appID: String, notifyURL: String?) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String, let totalText = biz["total_amount"] as? String,
            let total = try? Money(decimal: totalText, currency: .cny), total.isPositive, let subject = biz["subject"] as? String
        else { return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "参数无效") }
        if let existing = trades[number] {
            if existing.status == "TRADE_SUCCESS" { return failure("40004", "Business Failed", "ACQ.TRADE_HAS_SUCCESS", "交易已被支付") }
            if existing.status == "TRADE_CLOSED" { return failure("40004", "Business Failed", "ACQ.TRADE_HAS_CLOSE", "交易已经关闭") }
        } else {
            trades[number] = Trade(
                appID: appID, subject: subject, total: total, notifyURL: notifyURL,
                tradeNo: "2026" + SecureRandom.string(count: 24, alphabet: "0123456789"), sent: Self.sentFields(biz),
                authAppID: currentAuthApp)
        }
        return success([
            "out_trade_no": number, "qr_code": "https://qr.alipay.com/bax0\(SecureRandom.alphanumeric(count: 20).lowercased())",
        ])
    }

    private func query(_ biz: [String: Any]) -> [String: Any] {
        if let number = biz["out_trade_no"] as? String { settleWaiting(number) }
        guard let number = biz["out_trade_no"] as? String, let trade = trades[number] else { return notFound() }
        return success([
            "out_trade_no": number, "trade_no": trade.tradeNo, "trade_status": trade.status, "total_amount": trade.total.decimalString,
            "buyer_logon_id": "san***@sandbox.example",
        ])
    }

    private func close(_ biz: [String: Any]) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String, var trade = trades[number] else { return notFound() }
        guard trade.status == "WAIT_BUYER_PAY" else { return failure("40004", "Business Failed", "ACQ.TRADE_STATUS_ERROR", "交易状态不合法") }
        trade.status = "TRADE_CLOSED"
        trades[number] = trade
        return success(["out_trade_no": number, "trade_no": trade.tradeNo])
    }

    private func refund(_ biz: [String: Any]) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String, var trade = trades[number] else { return notFound() }
        guard trade.status == "TRADE_SUCCESS" else { return failure("40004", "Business Failed", "ACQ.TRADE_STATUS_ERROR", "交易状态不合法") }
        guard let text = biz["refund_amount"] as? String, let amount = try? Money(decimal: text, currency: .cny), amount.isPositive else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "refund_amount无效")
        }
        let requestNo = biz["out_request_no"] as? String ?? number
        if let existing = trade.refunds[requestNo], existing.amount != amount {
            return failure("40004", "Business Failed", "ACQ.REFUND_AMT_NOT_EQUAL_TOTAL", "退款金额与之前请求不一致")
        }
        if trade.refunds[requestNo] == nil {
            let refunded = trade.refunds.values.filter { !$0.failed }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            guard refunded + amount.minorUnits <= trade.total.minorUnits else {
                return failure("40004", "Business Failed", "ACQ.REFUND_AMT_NOT_EQUAL_TOTAL", "退款金额超限")
            }
            // What was settled to royalty receivers is theirs: a refund takes only the rest.
            guard refunded + amount.minorUnits + royalty.settled(number) <= trade.total.minorUnits else {
                return failure("40004", "Business Failed", "ACQ.REFUND_AMT_NOT_EQUAL_TOTAL", "退款金额超过未分账金额")
            }
            if refundOutcome == .refuse {
                return failure("40004", "Business Failed", "ACQ.SELLER_BALANCE_NOT_ENOUGH", "卖家余额不足")
            }
            var refund = Refund(amount: amount)
            if case .failLater = refundOutcome { refund.failed = true }
            trade.refunds[requestNo] = refund
            trades[number] = trade
            if !refund.failed, let url = trade.notifyURL { notify(number, trade, url, refund: (requestNo, refund)) }
        }
        let total =
            trade.refunds.values.filter { !$0.failed }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            + (trade.refunds[requestNo]?.failed == true ? amount.minorUnits : 0)
        return success([
            "out_trade_no": number, "trade_no": trade.tradeNo, "refund_fee": Money(minorUnits: total, currency: .cny).decimalString,
            "fund_change": "Y",
        ])
    }

    private func refundQuery(_ biz: [String: Any]) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String, let trade = trades[number] else { return notFound() }
        guard let requestNo = biz["out_request_no"] as? String, let refund = trade.refunds[requestNo] else {
            return success(["out_trade_no": number])  // Alipay answers success without refund fields when there is none
        }
        var fields: [String: Any] = [
            "out_trade_no": number, "out_request_no": requestNo, "refund_amount": refund.amount.decimalString,
            "total_amount": trade.total.decimalString,
        ]
        // No refund_status: "the refund was not received, or it failed" (Alipay's words).
        if !refund.failed { fields["refund_status"] = "REFUND_SUCCESS" }
        return success(fields)
    }

    // MARK: The payer

    /// Acts as the payer: pay, cancel or fail a trade. Returns its status, or `nil` when unknown.
    @discardableResult
    public func pay(outTradeNo: String, outcome: WeChatV2Sandbox.Outcome) -> String? {
        guard var trade = trades[outTradeNo] else { return nil }
        guard trade.status == "WAIT_BUYER_PAY", outcome == .success else { return trade.status }
        trade.status = "TRADE_SUCCESS"
        trade.paid = Date()
        trades[outTradeNo] = trade
        if let url = trade.notifyURL { notify(outTradeNo, trade, url) }
        return trade.status
    }

    /// Acts as the Alipay app given an order string (`alipay.trade.app.pay`): checks the app's
    /// signature, creates the trade, pays, cancels or fails it, and answers as the SDK's callback
    /// does: `resultStatus`, `memo` and, when paid, the signed sync `result`.
    public func payOrderString(_ orderString: String, outcome: WeChatV2Sandbox.Outcome) -> [String: String] {
        func answer(_ status: String, _ memo: String, _ result: String = "") -> [String: String] {
            ["resultStatus": status, "memo": memo, "result": result]
        }
        guard let parameters = try? Alipay.FormBody.parse(Array(orderString.utf8)), parameters["method"] == "alipay.trade.app.pay",
            let appID = parameters["app_id"], let appKey = apps[appID], let sign = parameters["sign"],
            let type = Alipay.SignType(rawValue: parameters["sign_type"] ?? "RSA2"),
            Alipay.Signer.isValidSignature(sign, content: Alipay.Signer.content(parameters), publicKey: appKey, type: type)
        else { return answer("4000", "订单信息无效或签名错误") }
        guard let biz = parameters["biz_content"].flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) }) as? [String: Any],
            let number = biz["out_trade_no"] as? String, let totalText = biz["total_amount"] as? String,
            let total = try? Money(decimal: totalText, currency: .cny), total.isPositive
        else { return answer("4000", "订单参数错误") }
        if outcome == .cancel { return answer("6001", "用户中途取消") }
        if trades[number] == nil {
            trades[number] = Trade(
                appID: appID, subject: biz["subject"] as? String ?? "", total: total, notifyURL: parameters["notify_url"],
                tradeNo: "2026" + SecureRandom.string(count: 24, alphabet: "0123456789"), sent: Self.sentFields(biz),
                authAppID: parameters["app_auth_token"].flatMap { appAuthTokens[$0] })
        }
        guard outcome == .success else { return answer("4000", "支付失败") }
        guard pay(outTradeNo: number, outcome: .success) == "TRADE_SUCCESS", let trade = trades[number] else {
            return answer("5000", "重复请求")
        }
        let node: [String: Any] = [
            "code": "10000", "msg": "Success", "app_id": appID, "auth_app_id": trade.authAppID ?? appID, "charset": "utf-8",
            "out_trade_no": number,
            "trade_no": trade.tradeNo, "total_amount": trade.total.decimalString, "seller_id": sellerID,
        ]
        let result = signed("alipay_trade_app_pay_response", node).dropLast() + ",\"sign_type\":\"RSA2\"}"
        return answer("9000", "", String(result))
    }

    // MARK: The web cashier (wap and page pay)

    private var pageTokens: [String: (outTradeNo: String, returnURL: String?, quitURL: String?)] = [:]

    /// Verifies a wap/page pay request, creates the trade and shows the payer a cashier page.
    private func cashierPage(_ parameters: [String: String], cashierPath: String) -> HTTPServerResponse {
        guard let appID = parameters["app_id"], let appKey = apps[appID], let sign = parameters["sign"],
            let type = Alipay.SignType(rawValue: parameters["sign_type"] ?? "RSA2"),
            Alipay.Signer.isValidSignature(sign, content: Alipay.Signer.content(parameters), publicKey: appKey, type: type)
        else { return Self.page(status: 400, title: "签名错误", body: "<p>The request's signature does not verify with the app's key.</p>") }
        guard let biz = parameters["biz_content"].flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) }) as? [String: Any],
            let number = biz["out_trade_no"] as? String, let totalText = biz["total_amount"] as? String,
            let total = try? Money(decimal: totalText, currency: .cny), total.isPositive
        else { return Self.page(status: 400, title: "参数错误", body: "<p>biz_content needs out_trade_no and total_amount.</p>") }
        if trades[number] == nil {
            trades[number] = Trade(
                appID: appID, subject: biz["subject"] as? String ?? "", total: total, notifyURL: parameters["notify_url"],
                tradeNo: "2026" + SecureRandom.string(count: 24, alphabet: "0123456789"), sent: Self.sentFields(biz),
                authAppID: parameters["app_auth_token"].flatMap { appAuthTokens[$0] })
        }
        let token = SecureRandom.alphanumeric(count: 32)
        pageTokens[token] = (number, parameters["return_url"], biz["quit_url"] as? String)
        let subject = Self.escape(trades[number]?.subject ?? "")
        let form = { (action: String, label: String) in
            """
            <form method="post" action="\(Self.escape(cashierPath))"><input type="hidden" name="token" value="\(token)">\
            <input type="hidden" name="action" value="\(action)"><button type="submit" id="\(action)">\(label)</button></form>
            """
        }
        return Self.page(
            status: 200, title: "支付宝收银台 (sandbox)",
            body: """
                <p class="amount big" id="amount">¥\(total.decimalString)</p><p id="subject">\(subject)</p>\
                <p id="merchant" class="muted">\(Self.escape(appID))</p>\(form("pay", "确认付款 Pay"))\(form("cancel", "取消 Cancel"))
                """, returnURL: parameters["return_url"])
    }

    /// Pay or cancel from the cashier page, then back to the merchant's `return_url`.
    private func cashierAction(_ fields: [String: String]) -> HTTPServerResponse {
        guard let token = fields["token"], let entry = pageTokens.removeValue(forKey: token), var trade = trades[entry.outTradeNo] else {
            return Self.page(status: 400, title: "页面已失效", body: "<p>This cashier page has expired.</p>")
        }
        guard fields["action"] == "pay" else {
            // The payer leaves: to quit_url when the merchant gave one (wap pay), else back to return_url.
            return (entry.quitURL ?? entry.returnURL).map { Self.redirect($0) }
                ?? Self.page(status: 200, title: "已取消", body: "<p>Cancelled.</p>")
        }
        _ = pay(outTradeNo: entry.outTradeNo, outcome: .success)
        trade = trades[entry.outTradeNo] ?? trade
        guard let returnURL = entry.returnURL else { return Self.page(status: 200, title: "支付成功", body: "<p>Paid.</p>") }
        var back: [String: String] = [
            "app_id": trade.appID, "out_trade_no": entry.outTradeNo, "trade_no": trade.tradeNo, "total_amount": trade.total.decimalString,
            "seller_id": sellerID, "charset": "utf-8", "method": "alipay.trade.wap.pay.return", "version": "1.0",
        ]
        back["sign"] = (try? alipayKey.signature(for: Alipay.Signer.content(back), scheme: .insecurePKCS1v1_5SHA256)).map {
            Base64.encode($0)
        }
        back["sign_type"] = "RSA2"
        let query = Alipay.FormBody.encode(back.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        return Self.redirect(returnURL + (returnURL.contains("?") ? "&" : "?") + query)
    }

    static func redirect(_ location: String) -> HTTPServerResponse {
        HTTPServerResponse(status: 303, headers: ["Location": location], body: [])
    }

    /// A page under the shared strict policy; `returnURL`'s origin may receive the redirect a form leads to.
    static func page(status: Int, title: String, body: String, returnURL: String? = nil) -> HTTPServerResponse {
        HTMLPage(
            title: title, body: "<main class=\"cashier\"><h1>\(escape(title))</h1>\(body)</main>",
            formTargets: returnURL.flatMap(SandboxPages.webOrigin).map { [$0] } ?? [], status: status
        ).response()
    }

    private static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// Posts the asynchronous notification of a payment — or, with `refund`, of a refund: the
    /// same `trade_status_sync` with `out_biz_no` (the refund's `out_request_no`), `refund_fee`
    /// (everything refunded so far) and `gmt_refund`, and `TRADE_CLOSED` once all is refunded.
    func notify(_ outTradeNo: String, _ trade: Trade, _ url: String, refund: (requestNo: String, refund: Refund)? = nil) {
        let stamp = { (date: Date) in BeijingTime.string(from: date, .dateTime) }
        let refunded = trade.refunds.values.filter { !$0.failed }.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
        let status = refund != nil && refunded >= trade.total.minorUnits ? "TRADE_CLOSED" : "TRADE_SUCCESS"
        var fields: [String: String] = [
            "notify_time": stamp(Date()), "notify_type": "trade_status_sync",
            "notify_id": SecureRandom.alphanumeric(count: 34),
            "app_id": trade.appID, "charset": "utf-8", "version": "1.0", "trade_no": trade.tradeNo, "out_trade_no": outTradeNo,
            "trade_status": status, "total_amount": trade.total.decimalString, "receipt_amount": trade.total.decimalString,
            "buyer_pay_amount": trade.total.decimalString, "gmt_create": stamp(trade.created),
            "gmt_payment": stamp(trade.paid ?? Date()), "subject": trade.subject, "seller_id": sellerID,
            "buyer_id": "2088102000000000", "auth_app_id": trade.authAppID ?? trade.appID,
        ]
        if let passback = trade.sent["passback_params"] { fields["passback_params"] = passback }
        if let refund {
            fields["out_biz_no"] = refund.requestNo
            fields["refund_fee"] = Money(minorUnits: refunded, currency: .cny).decimalString
            fields["gmt_refund"] = stamp(refund.refund.date) + ".000"
        }
        // Trade notifications are signed without sign_type, which is added afterwards.
        fields["sign"] = (try? alipayKey.signature(for: Alipay.Signer.content(fields), scheme: .insecurePKCS1v1_5SHA256)).map {
            Base64.encode($0)
        }
        fields["sign_type"] = "RSA2"
        let body = Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        delivery.deliver(
            key: refund?.requestNo ?? outTradeNo, url: url, body: Data(body.utf8),
            contentType: "application/x-www-form-urlencoded;charset=utf-8",
            schedule: Self.schedule
        ) { response in
            response.status == 200
                && String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "success"
        }
    }
}

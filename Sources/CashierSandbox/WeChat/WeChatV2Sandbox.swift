import Cashier
import CashierArchive
import CashierCrypto
public import CashierHTTP
import Foundation
public import WeChatPay

/// An offline, stateful simulator of the WeChat Pay v2 gateway.
///
/// It verifies every request's signature as WeChat does (with the sign type the request names),
/// answers in WeChat's XML with WeChat's error codes (`SIGNERROR` as `return_code` FAIL,
/// `ORDERPAID`, `ORDERCLOSED`, `OUT_TRADE_NO_USED`, `ORDERNOTEXIST`, `NOTENOUGH`, …), signs every
/// response, keeps orders and refunds, and, when a payer pays (``pay(outTradeNo:outcome:)``),
/// posts the signed notification to `notify_url` on WeChat's retry schedule.
///
/// Mount it on a router under a prefix; clients then use `http://127.0.0.1:PORT/PREFIX/` as
/// their gateway (wechatpy: `WeChatPay.API_BASE_URL`).
public actor WeChatV2Sandbox {
    /// What a payer does on the wallet's sheet.
    public enum Outcome: String, Sendable, Codable {
        case success, cancel, fail
    }

    struct Order: Sendable {
        let merchant: WeChatPay.V2.Merchant
        let signType: WeChatPay.V2.SignType
        let fingerprint: String
        let fields: [String: String]
        let prepayID: String
        var state: String = "NOTPAY"
        var transactionID: String?
        var timeEnd: String?
        var refunds: [Refund] = []
        /// A payment-code payment waiting for the payer's password: paid from this moment (`nil`: never).
        var payableAt: Date?
        /// Reversed after it was paid: the money went back to the payer.
        var reversedAfterPayment = false
        var totalFee: Int64 { Int64(fields["total_fee"] ?? "0") ?? 0 }
        /// What refunds hold: every one but those reported failed.
        var refunded: Int64 { refunds.filter { $0.status != "CHANGE" && $0.status != "REFUNDCLOSE" }.reduce(0) { $0 + $1.fee } }
    }

    struct Refund: Sendable {
        let outRefundNo: String
        let refundID: String
        let fee: Int64
        /// `SUCCESS`, or how it failed after it was accepted (`CHANGE`, `REFUNDCLOSE`).
        var status = "SUCCESS"
        var time = WeChatV2Sandbox.timestamp()
    }

    let merchants: [String: WeChatPay.V2.Merchant]
    let delivery: NotificationDelivery
    /// Withholding (委托代扣): signing requests, contracts, deductions waiting to settle, their clock.
    var papay = WeChatContractDesk()
    var orders: [String: Order] = [:]
    /// Refunds fail with `NOTENOUGH` while this is set (the merchant's balance is empty).
    public private(set) var refundBalanceExhausted = false

    /// Empties (or refills) the merchant's balance, so refunds fail with `NOTENOUGH`.
    public func setRefundBalanceExhausted(_ exhausted: Bool) {
        refundBalanceExhausted = exhausted
    }

    /// Refunds accepted from now on are reported failed afterwards (notification and query).
    private var failLaterStatus: String?

    /// How long a sandbox payer takes to enter a password (codes ending `1111`, ``SandboxCounterCode``).
    var passwordDelay = SandboxCounterCode.defaultPasswordDelay

    /// What new refunds do (``SandboxRefundOutcome``).
    public func setRefundOutcome(_ outcome: SandboxRefundOutcome) {
        refundBalanceExhausted = outcome == .refuse
        failLaterStatus = outcome.v2Status
    }

    /// - Parameters:
    ///   - merchants: whose keys the sandbox verifies with and signs with.
    ///   - delivery: sends notifications (and keeps the record of attempts).
    ///   - boundAppIDs: further appids (mini programs) bound to every merchant, as the merchant
    ///     platform lets a merchant bind several apps.
    public init(
        merchants: [WeChatPay.V2.Merchant], boundAppIDs: Set<String> = [], delivery: NotificationDelivery,
        address: SandboxAddress = SandboxAddress()
    ) {
        self.address = address
        self.merchants = Dictionary(merchants.map { ($0.mchID, $0) }, uniquingKeysWith: { first, _ in first })
        self.boundAppIDs = boundAppIDs
        self.delivery = delivery
    }

    private let boundAppIDs: Set<String>

    /// Routes the gateway's endpoints under `prefix` (e.g. `/wechat`), with and without `sandboxnew/`.
    public nonisolated func register(on router: inout Router, prefix: String) {
        let endpoints = [
            "pay/unifiedorder", "pay/orderquery", "pay/closeorder", "secapi/pay/refund", "pay/refundquery", "pay/getsignkey",
            "pay/downloadbill", "pay/micropay", "secapi/pay/reverse", "pay/downloadfundflow",
        ]
        for endpoint in endpoints + Self.papayEndpoints {
            for path in ["\(prefix)/\(endpoint)", "\(prefix)/sandboxnew/\(endpoint)"] {
                router.add("POST", path) { request, _ in
                    let xml = await self.handle(endpoint: endpoint, body: request.body)
                    if endpoint == "pay/downloadbill", let gzipped = Self.gzippedBill(xml, asked: request.body) { return gzipped }
                    return .text(xml, contentType: "text/xml; charset=utf-8")
                }
            }
        }
        registerPapay(on: &router, prefix: prefix)
    }

    /// A bill asked for with `tar_type=GZIP`, as WeChat serves it then: the text gzipped
    /// (`application/octet-stream`); `nil` for a refusal (XML, never gzipped) or a plain request.
    static func gzippedBill(_ answer: String, asked body: [UInt8]) -> HTTPServerResponse? {
        guard !answer.hasPrefix("<xml>"), (try? WeChatPay.V2.XMLDocument(parsing: body))?["tar_type"] == "GZIP",
            let gzipped = try? Gzip.compress(Data(answer.utf8))
        else { return nil }
        return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: Array(gzipped))
    }

    /// Calls to each endpoint (`pay/orderquery`, …), counted as they arrive.
    private var callCounts: [String: Int] = [:]

    /// How many calls `endpoint` (`pay/orderquery`, …) has had: what a merchant's server asked
    /// the gateway, for tests that count its calls.
    public func calls(to endpoint: String) -> Int { callCounts[endpoint, default: 0] }

    /// Answers one gateway call with the response XML.
    func handle(endpoint: String, body: [UInt8]) -> String {
        callCounts[endpoint, default: 0] += 1
        sweepPapay()
        let request: WeChatPay.V2.XMLDocument
        do {
            request = try WeChatPay.V2.XMLDocument(parsing: body)
        } catch {
            return Self.failReturn("XML格式错误")
        }
        guard let mchID = request["mch_id"], var merchant = merchants[mchID] else { return Self.failReturn("mch_id参数格式错误或商户不存在") }
        if let appID = request["appid"], appID != merchant.appID, boundAppIDs.contains(appID) {
            merchant = WeChatPay.V2.Merchant(appID: appID, mchID: mchID, apiKey: merchant.apiKey, signType: merchant.signType)
        }
        guard request["appid"] == merchant.appID else { return Self.failReturn("appid和mch_id不匹配") }
        guard let signType = WeChatPay.V2.SignType(field: request["sign_type"] ?? "MD5") else { return Self.failReturn("sign_type参数格式错误") }
        guard let sign = request["sign"], merchant.signer.isValidSignature(sign, for: request.pairs, type: signType) else {
            // WeChat answers a bad signature at the communication level; the code is given too.
            return WeChatPay.V2.XMLDocument([
                ("return_code", "FAIL"), ("return_msg", "签名错误"), ("err_code", "SIGNERROR"), ("err_code_des", "签名错误"),
            ]).xmlString
        }
        if endpoint == "pay/downloadbill" { return bill(request, merchant: merchant) }
        if endpoint == "pay/downloadfundflow" { return fundFlow(request, merchant: merchant, signType: signType) }
        let result: Result<[(String, String)], BusinessError>
        switch endpoint {
        case "pay/unifiedorder": result = unifiedOrder(request, merchant: merchant, signType: signType)
        case "pay/micropay": result = micropay(request, merchant: merchant, signType: signType)
        case "secapi/pay/reverse": result = reverse(request)
        case "pay/orderquery": result = orderQuery(request)
        case "pay/closeorder": result = closeOrder(request)
        case "secapi/pay/refund": result = refund(request)
        case "pay/refundquery": result = refundQuery(request)
        case "pay/getsignkey": result = .success([("sandbox_signkey", merchant.apiKey)])
        case _ where Self.papayEndpoints.contains(endpoint): result = papay(endpoint, request, merchant: merchant, signType: signType)
        default: result = .failure(BusinessError("SYSTEMERROR", "系统错误"))
        }
        var fields: [(String, String)] = [
            ("return_code", "SUCCESS"), ("return_msg", "OK"), ("appid", merchant.appID), ("mch_id", merchant.mchID),
            ("nonce_str", SecureRandom.alphanumeric(count: 16)),
        ]
        // A service provider's call for a sub-merchant is answered naming it.
        for name in ["sub_mch_id", "sub_appid"] { if let value = request[name] { fields.append((name, value)) } }
        switch result {
        case .success(let extra): fields += [("result_code", "SUCCESS")] + extra
        case .failure(let error): fields += [("result_code", "FAIL"), ("err_code", error.code), ("err_code_des", error.description)]
        }
        if signType != .md5 { fields.append(("sign_type", signType.rawValue)) }
        fields.append(("sign", merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: signType)))
        return WeChatPay.V2.XMLDocument(fields).xmlString
    }

    struct BusinessError: Error, CustomStringConvertible {
        let code: String
        let description: String
        init(_ code: String, _ description: String) {
            self.code = code
            self.description = description
        }
    }

    static func failReturn(_ message: String) -> String {
        WeChatPay.V2.XMLDocument([("return_code", "FAIL"), ("return_msg", message)]).xmlString
    }

    // MARK: Endpoints

    static let businessFields = [
        "body", "detail", "attach", "out_trade_no", "fee_type", "total_fee", "spbill_create_ip", "notify_url", "trade_type", "openid",
        "product_id", "time_expire", "sub_mch_id", "sub_appid", "scene_info",
    ]

    /// What the ledger shows of what the merchant sent.
    private static let sentFields = ["spbill_create_ip", "time_expire", "attach", "detail", "auth_code", "scene_info"]

    private func unifiedOrder(
        _ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant, signType: WeChatPay.V2.SignType
    ) -> Result<[(String, String)], BusinessError> {
        for name in ["body", "out_trade_no", "total_fee", "spbill_create_ip", "notify_url", "trade_type"]
        where (request[name] ?? "").isEmpty {
            return .failure(BusinessError("PARAM_ERROR", "缺少参数\(name)"))
        }
        let outTradeNo = request["out_trade_no"]!
        guard TradeNumber.isValid(outTradeNo, for: .wechat) else { return .failure(BusinessError("PARAM_ERROR", "out_trade_no参数格式错误")) }
        guard let fee = Int64(request["total_fee"]!), fee > 0 else { return .failure(BusinessError("PARAM_ERROR", "total_fee参数格式错误")) }
        _ = fee
        let tradeType = request["trade_type"]!
        guard ["APP", "JSAPI", "NATIVE", "MWEB"].contains(tradeType) else {
            return .failure(BusinessError("PARAM_ERROR", "trade_type参数格式错误"))
        }
        if tradeType == "JSAPI", (request["openid"] ?? "").isEmpty { return .failure(BusinessError("PARAM_ERROR", "JSAPI支付必须传openid")) }
        if tradeType == "MWEB" {
            // H5 names its site: {"h5_info":{"type":"Wap","wap_url":…,"wap_name":…}} (or an app's, for iOS/Android).
            guard let scene = request["scene_info"], !scene.isEmpty else { return .failure(BusinessError("PARAM_ERROR", "缺少参数scene_info")) }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(scene.utf8))) as? [String: Any],
                let h5 = object["h5_info"] as? [String: Any], let type = h5["type"] as? String, ["Wap", "IOS", "Android"].contains(type)
            else { return .failure(BusinessError("PARAM_ERROR", "scene_info参数格式错误")) }
        }
        // What a repeat must agree on: the order's substance, not where its notification goes (every
        // instance of a merchant's server has its own address in a test; behind a proxy they share one).
        let fingerprint = Self.businessFields.filter { $0 != "notify_url" }.map { "\($0)=\(request[$0] ?? "")" }.joined(separator: "&")
        if let existing = orders[outTradeNo] {
            switch existing.state {
            case "SUCCESS", "REFUND": return .failure(BusinessError("ORDERPAID", "该订单已支付"))
            case "CLOSED": return .failure(BusinessError("ORDERCLOSED", "该订单已关闭"))
            default: break
            }
            guard existing.fingerprint == fingerprint else { return .failure(BusinessError("OUT_TRADE_NO_USED", "商户订单号重复")) }
            return .success(prepayFields(existing))
        }
        var fields: [String: String] = [:]
        for name in Self.businessFields { fields[name] = request[name] }
        let order = Order(
            merchant: merchant, signType: signType, fingerprint: fingerprint, fields: fields,
            prepayID: "wx" + Self.timestamp() + SecureRandom.string(count: 18, alphabet: "0123456789abcdef"))
        orders[outTradeNo] = order
        return .success(prepayFields(order))
    }

    private func prepayFields(_ order: Order) -> [(String, String)] {
        var fields = [("trade_type", order.fields["trade_type"] ?? ""), ("prepay_id", order.prepayID)]
        if order.fields["trade_type"] == "NATIVE" { fields.append(("code_url", Self.codeURL(order.prepayID))) }
        if order.fields["trade_type"] == "MWEB" { fields.append(("mweb_url", cashierURL(prepayID: order.prepayID))) }
        return fields
    }

    /// What a Native order's QR code says.
    static func codeURL(_ prepayID: String) -> String { "weixin://wxpay/bizpayurl?pr=\(prepayID.suffix(7))" }

    /// Where the sandbox listens: H5 (MWEB) payers are sent to its cashier page.
    nonisolated let address: SandboxAddress

    private func cashierURL(prepayID: String) -> String {
        guard let pagesBase = address.value else { return "https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=\(prepayID)" }
        return pagesBase + "sandbox/wechat/h5?prepay_id=\(prepayID)"
    }

    /// A trade as the payer pages show it, by out_trade_no or prepay_id.
    public func trade(outTradeNo: String? = nil, prepayID: String? = nil) -> SandboxTrade? {
        guard let (number, order) = orders.first(where: { $0.key == outTradeNo || $0.value.prepayID == prepayID }) else { return nil }
        return SandboxTrade(
            outTradeNo: number,
            total: Money(minorUnits: order.totalFee, currency: (try? Currency(code: order.fields["fee_type"] ?? "CNY")) ?? .cny),
            subject: order.fields["body"] ?? "", merchant: order.merchant.mchID,
            codeURL: order.fields["trade_type"] == "NATIVE" ? Self.codeURL(order.prepayID) : nil, state: order.state)
    }

    /// The order a call names, if it is the calling (sub-)merchant's: a service provider reads a
    /// sub-merchant's orders naming its `sub_mch_id`, and a merchant never sees a sub-merchant's.
    func find(_ request: WeChatPay.V2.XMLDocument) -> String? {
        let key: String?
        if let outTradeNo = request["out_trade_no"], orders[outTradeNo] != nil {
            key = outTradeNo
        } else if let transactionID = request["transaction_id"] {
            key = orders.first { $0.value.transactionID == transactionID }?.key
        } else {
            key = nil
        }
        guard let key, let order = orders[key], order.fields["sub_mch_id"] == request["sub_mch_id"],
            order.merchant.mchID == request["mch_id"]
        else { return nil }
        return key
    }

    func orderQuery(_ request: WeChatPay.V2.XMLDocument) -> Result<[(String, String)], BusinessError> {
        if let key = find(request) { settleWaiting(key) }
        guard let key = find(request), let order = orders[key] else { return .failure(BusinessError("ORDERNOTEXIST", "订单不存在")) }
        var fields = [("out_trade_no", key), ("trade_state", order.state), ("trade_type", order.fields["trade_type"] ?? "")]
        fields.append(("total_fee", String(order.totalFee)))
        fields.append(("fee_type", order.fields["fee_type"] ?? "CNY"))
        if let transactionID = order.transactionID {
            fields += [
                ("transaction_id", transactionID), ("time_end", order.timeEnd ?? ""), ("cash_fee", String(order.totalFee)),
                ("bank_type", "CFT"),
            ]
        }
        fields.append(("trade_state_desc", Self.stateDescription[order.state] ?? order.state))
        return .success(fields)
    }

    private static let stateDescription = [
        "SUCCESS": "支付成功", "REFUND": "转入退款", "NOTPAY": "未支付", "CLOSED": "已关闭", "PAYERROR": "支付失败(其他原因，如银行返回失败)",
        "USERPAYING": "用户支付中（付款码支付）", "REVOKED": "已撤销（付款码支付）",
        "ACCEPT": "已接收，等待扣款", "PAY_FAIL": "支付失败(其他原因，如银行返回失败)",
    ]

    private func closeOrder(_ request: WeChatPay.V2.XMLDocument) -> Result<[(String, String)], BusinessError> {
        guard let key = find(request), var order = orders[key] else { return .failure(BusinessError("ORDERNOTEXIST", "订单不存在")) }
        switch order.state {
        case "SUCCESS", "REFUND": return .failure(BusinessError("ORDERPAID", "订单已支付，不能发起关单"))
        case "CLOSED": return .failure(BusinessError("ORDERCLOSED", "订单已关闭，无需继续调用"))
        default:
            order.state = "CLOSED"
            orders[key] = order
            return .success([])
        }
    }

    private func refund(_ request: WeChatPay.V2.XMLDocument) -> Result<[(String, String)], BusinessError> {
        guard let key = find(request), var order = orders[key] else { return .failure(BusinessError("ORDERNOTEXIST", "订单不存在")) }
        guard order.state == "SUCCESS" || order.state == "REFUND" else { return .failure(BusinessError("TRADE_STATE_ERROR", "订单状态错误")) }
        guard let outRefundNo = request["out_refund_no"], !outRefundNo.isEmpty, let fee = Int64(request["refund_fee"] ?? ""), fee > 0,
            Int64(request["total_fee"] ?? "") == order.totalFee
        else {
            return .failure(BusinessError("INVALID_REQUEST", "订单金额或退款金额与之前请求不一致，请核实后再试"))
        }
        if let existing = order.refunds.first(where: { $0.outRefundNo == outRefundNo }) {
            guard existing.fee == fee else { return .failure(BusinessError("INVALID_REQUEST", "订单金额或退款金额与之前请求不一致，请核实后再试")) }
            return .success(refundFields(key, order, existing))
        }
        guard order.refunded + fee <= order.totalFee else { return .failure(BusinessError("INVALID_REQUEST", "退款金额大于支付金额")) }
        guard !refundBalanceExhausted else { return .failure(BusinessError("NOTENOUGH", "基本账户余额不足，请充值后重新发起")) }
        var refund = Refund(outRefundNo: outRefundNo, refundID: Self.refundID(), fee: fee)
        if let failLaterStatus { refund.status = failLaterStatus }
        order.refunds.append(refund)
        order.state = "REFUND"
        orders[key] = order
        if let notifyURL = request["notify_url"], !notifyURL.isEmpty { notifyRefund(key, order, refund, notifyURL) }
        return .success(refundFields(key, order, refund))
    }

    private func refundFields(_ key: String, _ order: Order, _ refund: Refund) -> [(String, String)] {
        [
            ("out_trade_no", key), ("transaction_id", order.transactionID ?? ""), ("out_refund_no", refund.outRefundNo),
            ("refund_id", refund.refundID), ("refund_fee", String(refund.fee)), ("total_fee", String(order.totalFee)),
            ("cash_fee", String(order.totalFee)),
        ]
    }

    private func refundQuery(_ request: WeChatPay.V2.XMLDocument) -> Result<[(String, String)], BusinessError> {
        let key =
            find(request)
            ?? request["out_refund_no"].flatMap { number in orders.first { $0.value.refunds.contains { $0.outRefundNo == number } }?.key }
        guard let key, let order = orders[key], !order.refunds.isEmpty else { return .failure(BusinessError("REFUNDNOTEXIST", "退款订单查询失败")) }
        var fields = [
            ("out_trade_no", key), ("transaction_id", order.transactionID ?? ""), ("total_fee", String(order.totalFee)),
            ("refund_count", String(order.refunds.count)),
        ]
        for (index, refund) in order.refunds.enumerated() {
            fields += [
                ("out_refund_no_\(index)", refund.outRefundNo), ("refund_id_\(index)", refund.refundID),
                ("refund_fee_\(index)", String(refund.fee)),
                ("refund_status_\(index)", refund.status),
            ]
        }
        return .success(fields)
    }

    // MARK: The payer

    /// What WeChat's browser checks before it shows the payer a JSAPI payment
    /// (`WeixinJSBridge.invoke('getBrandWCPayRequest', …)`): a JSAPI order placed under that
    /// `appId`, and `paySign` the merchant's signature over the parameters. - Returns: the
    /// order's `out_trade_no`, `nil` when the invocation is not one of this sandbox's or does not verify.
    public func jsapiOrder(_ invocation: WeChatPay.JSAPIParameters) -> String? {
        guard let prepayID = invocation.package.hasPrefix("prepay_id=") ? String(invocation.package.dropFirst(10)) : nil,
            let (number, order) = orders.first(where: { $0.value.prepayID == prepayID }), order.fields["trade_type"] == "JSAPI",
            order.merchant.appID == invocation.appId, let type = WeChatPay.V2.SignType(rawValue: invocation.signType)
        else { return nil }
        let expected = order.merchant.signer.signature(
            for: [
                "appId": invocation.appId, "timeStamp": invocation.timeStamp, "nonceStr": invocation.nonceStr,
                "package": invocation.package, "signType": invocation.signType,
            ], type: type)
        return ConstantTime.equals(expected, invocation.paySign) ? number : nil
    }

    /// Acts as the payer in the WeChat app: pay, cancel or fail an order placed earlier.
    /// - Returns: the order's `trade_state` afterwards, or `nil` when no such order exists.
    @discardableResult
    public func pay(outTradeNo: String, outcome: Outcome) -> String? {
        guard var order = orders[outTradeNo] else { return nil }
        guard order.state == "NOTPAY" || order.state == "PAYERROR" || order.state == "USERPAYING" else { return order.state }
        switch outcome {
        case .cancel: return order.state
        case .fail:
            order.state = "PAYERROR"
            orders[outTradeNo] = order
            return order.state
        case .success:
            order.state = "SUCCESS"
            order.transactionID = "42000" + Self.timestamp() + SecureRandom.string(count: 9, alphabet: "0123456789")
            order.timeEnd = Self.timestamp()
            orders[outTradeNo] = order
            // Payment-code payments have no notify_url: the till queries.
            if order.fields["trade_type"] != "MICROPAY" { notify(outTradeNo, order) }
            return order.state
        }
    }

    /// The payment notification; `failure` makes it a failed one (`result_code` FAIL), as a
    /// withholding deduction that failed is announced.
    func notify(_ outTradeNo: String, _ order: Order, failure: BusinessError? = nil) {
        var fields: [(String, String)] = [
            ("appid", order.merchant.appID), ("bank_type", "CFT"), ("cash_fee", String(order.totalFee)),
            ("fee_type", order.fields["fee_type"] ?? "CNY"),
            ("is_subscribe", "N"), ("mch_id", order.merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 32)),
            ("openid", order.fields["openid"] ?? "oSandboxPayer000000000000000"), ("out_trade_no", outTradeNo),
            ("result_code", failure == nil ? "SUCCESS" : "FAIL"),
            ("return_code", "SUCCESS"), ("time_end", order.timeEnd ?? ""), ("total_fee", String(order.totalFee)),
            ("trade_type", order.fields["trade_type"] ?? ""), ("transaction_id", order.transactionID ?? ""),
        ]
        if let attach = order.fields["attach"] { fields.append(("attach", attach)) }
        if let failure { fields += [("err_code", failure.code), ("err_code_des", failure.description)] }
        for name in ["sub_mch_id", "sub_appid", "contract_id"] { if let value = order.fields[name] { fields.append((name, value)) } }
        fields.append(("sign", order.merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: order.signType)))
        delivery.deliver(
            key: outTradeNo, url: order.fields["notify_url"] ?? "", body: Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8),
            contentType: "text/xml; charset=utf-8", schedule: NotificationDelivery.wechatSchedule
        ) { response in
            response.status == 200 && (try? WeChatPay.V2.XMLDocument(parsing: Array(response.body)))?["return_code"] == "SUCCESS"
        }
    }

    /// Sends the refund notification: `req_info` is the refund's `<root>` document, AES-256-ECB
    /// encrypted under the lower-case hex MD5 of the API key, as WeChat does.
    func notifyRefund(_ outTradeNo: String, _ order: Order, _ refund: Refund, _ url: String, source: String = "API") {
        let inner = WeChatPay.V2.XMLDocument(
            root: "root",
            [
                ("out_refund_no", refund.outRefundNo), ("out_trade_no", outTradeNo), ("refund_account", "REFUND_SOURCE_UNSETTLED_FUNDS"),
                ("refund_fee", String(refund.fee)), ("refund_id", refund.refundID), ("refund_recv_accout", "支付用户零钱"),
                ("refund_request_source", source), ("refund_status", refund.status), ("settlement_refund_fee", String(refund.fee)),
                ("settlement_total_fee", String(order.totalFee)), ("success_time", Self.timestamp()), ("total_fee", String(order.totalFee)),
                ("transaction_id", order.transactionID ?? ""),
            ])
        let key = Array(Hex.encode(DigestAlgorithm.insecureMD5.hash(order.merchant.apiKey)).utf8)
        guard let encrypted = try? InsecureAESECB.encrypt(Array(inner.xmlString.utf8), key: key) else { return }
        var outerFields = [
            ("return_code", "SUCCESS"), ("appid", order.merchant.appID), ("mch_id", order.merchant.mchID),
            ("nonce_str", SecureRandom.alphanumeric(count: 32)), ("req_info", Base64.encode(encrypted)),
        ]
        for name in ["sub_mch_id", "sub_appid"] { if let value = order.fields[name] { outerFields.append((name, value)) } }
        let outer = WeChatPay.V2.XMLDocument(outerFields)
        delivery.deliver(
            key: refund.outRefundNo, url: url, body: Data(outer.xmlString.utf8), contentType: "text/xml; charset=utf-8",
            schedule: NotificationDelivery.wechatSchedule
        ) { response in
            response.status == 200 && (try? WeChatPay.V2.XMLDocument(parsing: Array(response.body)))?["return_code"] == "SUCCESS"
        }
    }

    /// Every trade and refund, as the merchant's books at WeChat would show them.
    public func ledger() -> [SandboxLedgerEntry] {
        orders.sorted { $0.key < $1.key }.map { number, order in
            SandboxLedgerEntry(
                provider: "wechat.v2", out_trade_no: number, state: order.state,
                paid: order.transactionID != nil && !order.reversedAfterPayment,
                amount_minor: order.totalFee, currency: order.fields["fee_type"] ?? "CNY", transaction_id: order.transactionID,
                refunds: order.refunds.map { .init(out_refund_no: $0.outRefundNo, amount_minor: $0.fee, status: $0.status) },
                sent: order.fields.filter { Self.sentFields.contains($0.key) })
        }
    }

    /// Where an order stands in the sandbox's ledger (`NOTPAY`, `SUCCESS`, …), for tests.
    public func tradeState(outTradeNo: String) -> String? {
        orders[outTradeNo]?.state
    }

    /// A new refund's `refund_id`, as WeChat numbers them.
    static func refundID() -> String { "50" + timestamp() + SecureRandom.string(count: 15, alphabet: "0123456789") }

    static func timestamp() -> String {
        BeijingTime.string(from: Date(), .compact)
    }
}

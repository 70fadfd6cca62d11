import ApplePay
import Cashier
import CashierHTTP
import CashierWeb
import Foundation
import WeChatPay

/// The pages a payer sees in the sandbox, as the real wallets show them:
///
/// - `GET /sandbox/wechat/native/{out_trade_no}` — a Native order's `code_url` as a QR code, with
///   a "scan and pay" button that acts as the payer who scanned it.
/// - `GET /sandbox/wechat/h5?prepay_id=…&redirect_url=…` — the H5 (`mweb_url`) cashier: amount,
///   merchant, subject, pay or cancel; then back to `redirect_url` as WeChat sends the browser back.
/// - `GET /sandbox/applepay/checkout?api=…&publishable_key=…&order_id=…&client_secret=…` — an
///   Apple Pay on the web checkout for a merchant server's order: "Pay" first has the server validate
///   the merchant (`POST /v1/applepay/sessions` with the sandbox's simulated Apple endpoint as the
///   validation URL, as `onvalidatemerchant` would), then mints a sandbox token for the order and
///   sends it to the server's authorize endpoint, as the page's JavaScript would.
///
/// - `POST /sandbox/wechat/jsapi` — WeChat's browser receiving `getBrandWCPayRequest`: checks the
///   parameters' signature, then pays (or cancels) and answers the callback's `err_msg`.
/// - `GET /sandbox/shop/return` — a pretend shop page checkout pages send the payer back to.
///
/// (Alipay's wap/page cashier lives with the Alipay simulator, behind its gateway URL.)
struct SandboxPages: Sendable {
    let wechatV2: WeChatV2Sandbox
    let wechatV3: WeChatV3Sandbox
    let applePay: ApplePaySandbox
    let transport: any HTTPTransport
    /// Where the sandbox listens: its simulated Apple merchant-validation endpoint hangs off it.
    let address: SandboxAddress

    func register(on router: inout Router) {
        router.add("GET", "/sandbox/wechat/native/{number}") { _, parameters in
            await self.nativePage(parameters["number"], paid: false)
        }
        router.add("POST", "/sandbox/wechat/native/{number}") { _, parameters in
            let number = parameters["number"]
            _ = await Self.payWeChat(number, .success, v2: self.wechatV2, v3: self.wechatV3)
            return await self.nativePage(number, paid: true)
        }
        router.add("GET", "/sandbox/wechat/h5") { request, _ in
            await self.h5Page(prepayID: request.queryValue("prepay_id") ?? "", redirect: request.queryValue("redirect_url"))
        }
        router.add("POST", "/sandbox/wechat/h5") { request, _ in
            let form = request.formFields
            return await self.h5Action(prepayID: form["prepay_id"] ?? "", action: form["action"] ?? "", redirect: form["redirect_url"])
        }
        router.add("POST", "/sandbox/wechat/jsapi") { request, _ in await self.jsapiInvocation(request) }
        router.add("GET", "/sandbox/shop/return") { request, _ in
            // A merchant's page a checkout sends the payer back to: it shows what it was given, and
            // asks its own server (not the URL) whether the order is paid.
            let given = request.query.map { "<li><code>\(HTMLText.escape($0.name))</code> = \(HTMLText.escape($0.value))</li>" }.joined()
            return HTMLPage(
                title: "Back at the shop (sandbox)",
                body: "<main class=\"cashier\"><h1 id=\"shop\">Back at the shop</h1><ul id=\"given\">\(given)</ul></main>"
            ).response()
        }
        router.add("GET", "/sandbox/applepay/checkout") { request, _ in
            await self.checkout(Self.checkoutFields(request.queryFields), pay: false)
        }
        router.add("POST", "/sandbox/applepay/checkout") { request, _ in
            await self.checkout(Self.checkoutFields(request.formFields), pay: true)
        }
    }

    // MARK: WeChat

    /// The payer pays a WeChat trade, wherever it was placed (v2 or v3). - Returns: its state, `nil` when neither knows it.
    static func payWeChat(_ outTradeNo: String, _ outcome: WeChatV2Sandbox.Outcome, v2: WeChatV2Sandbox, v3: WeChatV3Sandbox) async
        -> String?
    {
        if let state = await v2.pay(outTradeNo: outTradeNo, outcome: outcome) { return state }
        return await v3.pay(outTradeNo: outTradeNo, outcome: outcome)
    }

    private func trade(outTradeNo: String? = nil, prepayID: String? = nil) async -> SandboxTrade? {
        if let trade = await wechatV2.trade(outTradeNo: outTradeNo, prepayID: prepayID) { return trade }
        return await wechatV3.trade(outTradeNo: outTradeNo, prepayID: prepayID)
    }

    private func nativePage(_ number: String, paid: Bool) async -> HTTPServerResponse {
        guard let trade = await trade(outTradeNo: number), let code = trade.codeURL, let svg = QRCodeSVG.svg(for: code) else {
            return Self.notice(status: 404, title: "订单不存在 No such order", "No WeChat Native order \(number) in the sandbox.")
        }
        let action =
            trade.state == "NOTPAY" || trade.state == "PAYERROR"
            ? """
            <form method="post" action="/sandbox/wechat/native/\(HTMLText.escape(number))">\
            <button type="submit" id="scan-and-pay">扫码支付 Scan and pay</button></form>
            """
            : "<p id=\"state\">\(paid ? "支付成功 Paid" : HTMLText.escape(trade.state))</p>"
        return HTMLPage(
            title: "微信支付 WeChat Pay (sandbox)",
            body: """
                <main class="cashier"><h1>微信支付 WeChat Pay</h1>\(Self.summary(trade))\
                <div class="qr" id="qr">\(svg)</div><p class="muted"><code id="code-url">\(HTMLText.escape(code))</code></p>\(action)</main>
                """
        ).response()
    }

    private func h5Page(prepayID: String, redirect: String?) async -> HTTPServerResponse {
        guard let trade = await trade(prepayID: prepayID) else {
            return Self.notice(status: 404, title: "订单不存在 No such order", "No WeChat H5 order for this prepay_id in the sandbox.")
        }
        let target = redirect.flatMap(Self.webOrigin)
        let form = { (action: String, label: String, style: String) in
            """
            <form method="post" action="/sandbox/wechat/h5" class="inline"><input type="hidden" name="prepay_id" value="\(HTMLText.escape(prepayID))">\
            <input type="hidden" name="action" value="\(action)">\
            \(redirect.map { "<input type=\"hidden\" name=\"redirect_url\" value=\"\(HTMLText.escape($0))\">" } ?? "")\
            <button type="submit" id="\(action)" class="\(style)">\(label)</button></form>
            """
        }
        return HTMLPage(
            title: "微信支付 WeChat Pay (sandbox)",
            body: """
                <main class="cashier"><h1>微信支付 WeChat Pay</h1>\(Self.summary(trade))\
                \(form("pay", "确认支付 Pay", "")) \(form("cancel", "取消 Cancel", "secondary"))</main>
                """,
            formTargets: target.map { [$0] } ?? []
        ).response()
    }

    private func h5Action(prepayID: String, action: String, redirect: String?) async -> HTTPServerResponse {
        guard let trade = await trade(prepayID: prepayID) else {
            return Self.notice(status: 404, title: "订单不存在 No such order", "No WeChat H5 order for this prepay_id in the sandbox.")
        }
        if action == "pay" { _ = await Self.payWeChat(trade.outTradeNo, .success, v2: wechatV2, v3: wechatV3) }
        // Like WeChat: back to the merchant's page whatever happened; the page asks its server.
        guard let redirect, Self.webOrigin(redirect) != nil else {
            return Self.notice(status: 200, title: action == "pay" ? "支付成功 Paid" : "已取消 Cancelled", "You may close this page.")
        }
        return HTTPServerResponse(status: 303, headers: ["Location": redirect], body: [])
    }

    /// What WeChat's browser does with `WeixinJSBridge.invoke('getBrandWCPayRequest', parameters, callback)`:
    /// checks the parameters' signature, shows the payer the payment, and calls back with
    /// `{"err_msg": "get_brand_wcpay_request:ok"}` (or `:cancel`, `:fail`). The body is the
    /// parameters as JSON, plus `"action": "pay" | "cancel" | "fail"` for what the payer does
    /// (default pay); a test standing in for the browser relays the answer to the page's callback.
    private func jsapiInvocation(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        struct Action: Decodable { let action: String? }
        guard let invocation = try? request.decodeJSON(WeChatPay.JSAPIParameters.self) else {
            return .json(object: ["err_msg": "get_brand_wcpay_request:fail", "err_desc": "the parameters are not a JSAPI payment"])
        }
        let action = (try? request.decodeJSON(Action.self))?.action
        var number = await wechatV2.jsapiOrder(invocation)
        if number == nil { number = await wechatV3.jsapiOrder(invocation) }
        guard let number else {
            // What WeChat shows for a bad signature or someone else's prepay_id.
            return .json(object: ["err_msg": "get_brand_wcpay_request:fail", "err_desc": "支付验证签名失败 (the signature does not verify)"])
        }
        switch action ?? "pay" {
        case "cancel": return .json(object: ["err_msg": "get_brand_wcpay_request:cancel"])
        case "fail":
            _ = await Self.payWeChat(number, .fail, v2: wechatV2, v3: wechatV3)
            return .json(object: ["err_msg": "get_brand_wcpay_request:fail"])
        default:
            let state = await Self.payWeChat(number, .success, v2: wechatV2, v3: wechatV3)
            return .json(object: ["err_msg": state == "SUCCESS" ? "get_brand_wcpay_request:ok" : "get_brand_wcpay_request:fail"])
        }
    }

    // MARK: Apple Pay on the web

    struct CheckoutFields {
        let api: URL
        let publishableKey: String
        let orderID: String
        let clientSecret: String
    }

    /// The checkout's parameters; the merchant server must be on this machine (the sandbox calls it).
    static func checkoutFields(_ values: [String: String]) -> CheckoutFields? {
        guard let text = values["api"], let api = URL(string: text), api.scheme == "http" || api.scheme == "https",
            ["127.0.0.1", "localhost", "::1"].contains(api.host ?? ""), let key = values["publishable_key"], key.hasPrefix("pk_"),
            let order = values["order_id"], !order.isEmpty, let secret = values["client_secret"], !secret.isEmpty
        else { return nil }
        return CheckoutFields(api: api, publishableKey: key, orderID: order, clientSecret: secret)
    }

    private func checkout(_ fields: CheckoutFields?, pay: Bool) async -> HTTPServerResponse {
        guard let fields else {
            return Self.notice(
                status: 400, title: "Apple Pay checkout",
                "Open it with ?api=http://127.0.0.1:PORT&publishable_key=pk_…&order_id=ord_…&client_secret=… (a merchant server on this machine)."
            )
        }
        let base = fields.api.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async -> [String: Any]? {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(fields.publishableKey)")
            headers.add("Content-Type", "application/json")
            let data = body.flatMap { try? JSONSerialization.data(withJSONObject: $0) } ?? Data()
            guard let url = URL(string: base + path),
                let response = try? await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: data))
            else { return nil }
            return try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        }
        let secret = fields.clientSecret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        guard let order = await call("GET", "/v1/orders/\(fields.orderID)?client_secret=\(secret)"),
            let amount = order["amount"] as? [String: Any], let minor = (amount["amount_minor"] as? NSNumber)?.int64Value,
            let currency = (amount["currency"] as? String).flatMap({ try? Currency(code: $0) })
        else { return Self.notice(status: 404, title: "Apple Pay checkout", "The merchant server does not know this order.") }
        let total = Money(minorUnits: minor, currency: currency)
        let summary = """
            <p class="amount big" id="amount">\(HTMLText.escape(total.decimalString)) \(currency.code)</p>\
            <p id="subject">\(HTMLText.escape(order["description"] as? String ?? ""))</p>
            """
        guard pay else {
            let hidden = [
                ("api", fields.api.absoluteString), ("publishable_key", fields.publishableKey), ("order_id", fields.orderID),
                ("client_secret", fields.clientSecret),
            ].map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(HTMLText.escape($0.1))\">" }.joined()
            return HTMLPage(
                title: "Checkout — Apple Pay (sandbox)",
                body: """
                    <main class="cashier"><h1>Checkout</h1>\(summary)<p id="status">\(HTMLText.escape(order["status"] as? String ?? ""))</p>\
                    <form method="post" action="/sandbox/applepay/checkout">\(hidden)<button type="submit" id="applepay"> Pay</button></form>\
                    <p class="muted">Sandbox: the token is minted by the test CA, never by a device.</p></main>
                    """
            ).response()
        }
        // onvalidatemerchant: the server asks "Apple" (the sandbox's endpoint) for a merchant session.
        let validation = (address.value ?? "") + "sandbox/applepay/paymentservices/startSession"
        let session = await call("POST", "/v1/applepay/sessions", ["validation_url": validation])
        guard let sessionID = session?["merchantSessionIdentifier"] as? String else {
            let reason = (session?["error"] as? [String: Any])?["message"] as? String ?? "no answer"
            return Self.notice(status: 502, title: "Apple Pay checkout", "Merchant validation failed: \(reason)")
        }
        // The sheet: a token for this order (its amount, its id as applicationData), sent to the server.
        guard let token = try? await applePay.mintPayment(amount: total, applicationData: Array(fields.orderID.utf8)),
            let tokenObject = try? JSONSerialization.jsonObject(with: token)
        else {
            return Self.notice(
                status: 409, title: "Apple Pay checkout", "No merchant processing certificate is registered with the sandbox.")
        }
        let answer = await call(
            "POST", "/v1/orders/\(fields.orderID)/payments/applepay/authorize",
            ["token": tokenObject, "client_secret": fields.clientSecret])
        let status = answer?["status"] as? Int ?? -1
        let orderStatus = answer?["order_status"] as? String ?? "unknown"
        return HTMLPage(
            title: "Checkout — Apple Pay (sandbox)",
            body: """
                <main class="cashier"><h1>\(status == 0 ? "Thank you" : "Payment not completed")</h1>\(summary)\
                <p id="result">ApplePaySession status \(status): the order is <span class="badge \(HTMLText.escape(orderStatus))" id="order-status">\
                \(HTMLText.escape(orderStatus))</span></p>\
                <p class="muted" id="merchant-session">Merchant validated: session \(HTMLText.escape(String(sessionID.prefix(11))))…</p></main>
                """
        ).response()
    }

    // MARK: Helpers

    static func summary(_ trade: SandboxTrade) -> String {
        """
        <p class="amount big" id="amount">¥\(HTMLText.escape(trade.total.decimalString))</p>\
        <p id="subject">\(HTMLText.escape(trade.subject))</p><p class="muted" id="merchant">商户 \(HTMLText.escape(trade.merchant))</p>
        """
    }

    static func notice(status: Int, title: String, _ message: String) -> HTTPServerResponse {
        HTMLPage(
            title: title, body: "<main class=\"cashier\"><h1>\(HTMLText.escape(title))</h1><p>\(HTMLText.escape(message))</p></main>",
            status: status
        )
        .response()
    }

    /// `scheme://host[:port]` of an http(s) URL, for the page's form-action policy.
    static func webOrigin(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme, scheme == "http" || scheme == "https", let host = url.host else {
            return nil
        }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
    }
}

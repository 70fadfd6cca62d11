import Cashier
import CashierHTTP
import CashierStore
import CashierWeb
import Foundation
import WeChatPay

/// The checkout page's actions: a method chosen, the payment started as the app would start it
/// (the order's client secret with the publishable key, through the same API handlers), then
/// the QR code, a hand-off to the wallet, or WeChat's web authorisation first for JSAPI.
extension CheckoutPage {
    /// `POST /pay/{id}` (`client_secret`, `method`, optional `return_url`).
    func choose(_ request: HTTPServerRequest, id: String, fields: [String: String]) async -> HTTPServerResponse {
        await whilePayable(request, id: id, fields: fields) { visit in await self.choose(visit, fields: fields) }
    }

    /// `body` for a visit whose order can still be paid; the refusal or the order's state otherwise.
    func whilePayable(
        _ request: HTTPServerRequest, id: String, fields: [String: String], _ body: (Visit) async -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        let visit: Visit
        do {
            visit = try await self.visit(request, id: id, fields: fields)
        } catch {
            return refused(error, request: request)
        }
        guard isPayable(visit.order) else { return render(visit) }
        return await body(visit)
    }

    private func choose(_ visit: Visit, fields: [String: String]) async -> HTTPServerResponse {
        guard let method = fields["method"].flatMap(PaymentMethod.init), method != .applePay, methods(visit).contains(method) else {
            return render(visit, note: visit.text.failed + ": " + (fields["method"] ?? "?"), status: 400)
        }
        if method == .wechatJSAPI, let account = officialAccount {
            // The payer's openid first: WeChat authorises silently and comes back to /pay/{id}/wechat.
            let back = CheckoutLink.path(
                order: visit.order, extra: visit.linkReturnURL.map { [("return_url", $0)] } ?? [], base: ledger.publicBase, step: "/wechat")
            return handoff(visit, to: account.authorizeURL(redirectURI: back, state: visit.order.id), visit.text.openInWeChat)
        }
        let returning = link(visit, absolute: true, [("returned", "1")])
        let started = await start(
            visit, PaymentRequestBody(method: method.rawValue, return_url: method.wallet == .alipay ? returning : nil))
        guard case .success(let wallet) = started else { return failed(visit, started) }
        switch (method, wallet) {
        case (.wechatNative, .wechatQRCode(let code)?):
            guard let svg = QRCodeSVG.svg(for: code) else { return failed(visit, started) }
            return render(
                visit,
                content: """
                    <div id="native"><p>\(HTMLText.escape(visit.text.scan))</p><div class="qr" id="qr">\(svg)</div>\
                    <p><a id="other" href="\(HTMLText.escape(link(visit)))">\(HTMLText.escape(visit.text.otherMethod))</a></p></div>
                    """)
        case (.wechatH5, .wechatH5(let url)?):
            // WeChat sends the browser back here when the payer is done (or gave up).
            return handoff(visit, to: url + (url.contains("?") ? "&" : "?") + "redirect_url=" + FormEncoding.escape(returning))
        case (.unionpayApplePay, .unionpay(let tn, let mode)?):
            // The page that stands in for UnionPay's plugin (the sandbox's payer page, or a link into
            // the merchant's app, which hands the tn to UPAPayPlugin), and back here to ask.
            guard let page = configuration.unionpay?.checkoutPayURL?.absoluteString else { return failed(visit, started) }
            let query = [("tn", tn), ("mode", mode), ("return_url", returning)]
                .map { $0.0 + "=" + FormEncoding.escape($0.1) }.joined(separator: "&")
            return handoff(visit, to: page + (page.contains("?") ? "&" : "?") + query)
        case (_, .alipayPage(let url, _)?):
            return handoff(visit, to: url)
        default:
            return failed(visit, started)
        }
    }

    func isPayable(_ order: StoredOrder) -> Bool {
        let open = order.status == .created || order.status == .pending || order.status == .failed
        return open && !(order.expiresAt.map { $0 <= ledger.clock.now() } ?? false)
    }

    /// `GET /pay/{id}/wechat?code=…&state=…`: back from WeChat's web authorisation with the
    /// payer's code; the openid it stands for starts a JSAPI payment, which the page's script
    /// hands to `WeixinJSBridge`.
    func wechatAuthorized(_ request: HTTPServerRequest, id: String, fields: [String: String]) async -> HTTPServerResponse {
        await whilePayable(request, id: id, fields: fields) { visit in await self.wechatAuthorized(visit, fields: fields) }
    }

    private func wechatAuthorized(_ visit: Visit, fields: [String: String]) async -> HTTPServerResponse {
        guard let account = officialAccount, let code = fields["code"], !code.isEmpty else {
            return render(visit, note: visit.text.notCompleted)  // the payer declined, or JSAPI is not configured
        }
        let openID: String
        do {
            openID = try await account.openID(code: code)
        } catch {
            return render(visit, note: visit.text.failed, status: 502)
        }
        let started = await start(visit, PaymentRequestBody(method: PaymentMethod.wechatJSAPI.rawValue, openid: openID))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard case .success(.wechat(let invocation)?) = started, let json = try? encoder.encode(invocation) else {
            return failed(visit, started)
        }
        return render(
            visit,
            content: """
                <p id="jsapi-waiting">\(HTMLText.escape(visit.text.openInWeChat))</p>\
                <p><a id="other" href="\(HTMLText.escape(link(visit)))">\(HTMLText.escape(visit.text.otherMethod))</a></p>
                """,
            data: ["jsapi": String(decoding: json, as: UTF8.self)])
    }

    /// `POST /pay/{id}/applepay/{request|session|update|authorize}`: Apple Pay on the web's calls,
    /// made for the page with the order's client secret (in the JSON body) through the services
    /// the API calls, with the app's rights, so the page never holds a key.
    func applePay(_ request: HTTPServerRequest, id: String, step: String) async -> HTTPServerResponse {
        guard var body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
            let secret = body["client_secret"] as? String
        else { return .error(status: 400, code: "invalid_request", message: #"expected a JSON object with "client_secret""#) }
        guard let visit = try? await visit(request, id: id, fields: ["client_secret": secret]) else {
            return .error(status: 404, code: "not_found", message: "no order \(id) for this client secret")
        }
        do {
            switch step {
            case "request":
                let started = try await ledger.payments.start(
                    id, payerBody(PaymentRequestBody(method: PaymentMethod.applePay.rawValue, client_secret: secret), for: visit), by: .app)
                return .json(started.json, status: started.pending ? 202 : 200)
            case "session":
                // The page sends the client secret with every step; the session is the merchant's, not the order's.
                body["client_secret"] = nil
                return try await PaymentsController.session(Array(try JSONSerialization.data(withJSONObject: body)), ledger: ledger)
            case "update":
                guard ledger.configuration.applePay != nil else { throw ApplePayAuthorizer.notConfigured }
                let update = try RequestProblem.decode(
                    SheetUpdateBody.self, from: request.body,
                    expected:
                        #"{"shipping_method":"express"} or {"shipping_contact":{"countryCode":"US",…}} or {"coupon_code":"WELCOME10"}"#)
                return HTTPServerResponse(
                    status: 200, headers: ["Content-Type": "application/json"], body: try await ledger.sheets.update(id, update, by: .app))
            case "authorize":
                guard ledger.configuration.applePay != nil else { throw ApplePayAuthorizer.notConfigured }
                return .json(try await ledger.applePay.authorize(id, try PaymentsController.presented(request.body), by: .app))
            default: return .error(status: 404, code: "not_found", message: "no such step: request, session, update or authorize")
            }
        } catch {
            return ErrorMapping<CheckoutContext>.response(for: error)
        }
    }

    /// `body` as the app would send it for the visit's payer: the order's client secret, and the
    /// payer's address where the payer's own request came from (WeChat Pay's H5 checks it).
    func payerBody(_ body: PaymentRequestBody, for visit: Visit) -> PaymentRequestBody {
        var body = body
        if body.client_ip == nil { body.client_ip = configuration.trustedProxies.clientAddress(of: visit.request) }
        return body
    }

    enum Started {
        case success(WalletParameters?)
        case failure(status: Int, message: String)
    }

    /// Starts a payment of the visit's order, as the app would with the order's client secret.
    func start(_ visit: Visit, _ body: PaymentRequestBody) async -> Started {
        let request = PaymentRequestBody(
            method: body.method, client_secret: visit.order.clientSecret, client_ip: body.client_ip, api: body.api, openid: body.openid,
            js_code: body.js_code, return_url: body.return_url, auth_code: body.auth_code)
        do {
            return .success(try await ledger.payments.start(visit.order.id, payerBody(request, for: visit), by: .app).json.wallet)
        } catch {
            let refusal = ErrorMapping<CheckoutContext>.refusal(for: error)
            return .failure(status: refusal.status, message: refusal.message)
        }
    }

    /// The choice again, saying the wallet could not be started (and why, as the API said it).
    func failed(_ visit: Visit, _ started: Started) -> HTTPServerResponse {
        var status = 502
        var reason = ""
        if case .failure(let code, let message) = started {
            status = code
            reason = ": " + message
        }
        return render(visit, note: visit.text.failed + reason, status: status)
    }

    /// Sends the browser on to a wallet's page: a link (and the page's script follows it at
    /// once). Only an http(s) address is ever followed.
    func handoff(_ visit: Visit, to url: String, _ message: String? = nil) -> HTTPServerResponse {
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            return failed(visit, .failure(status: 502, message: "the wallet's address is not a web address"))
        }
        return render(
            visit,
            content: """
                <p id="handoff">\(HTMLText.escape(message ?? visit.text.redirecting))</p>\
                <p><a id="continue" href="\(HTMLText.escape(url))">\(HTMLText.escape(visit.text.continueTo))</a></p>
                """,
            data: ["handoff": url])
    }
}

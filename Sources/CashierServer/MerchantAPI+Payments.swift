import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation
import WeChatPay

/// `/v1/orders/{id}/payments`: wallet parameters for each method, and Apple Pay authorisation.
extension MerchantAPI {

    struct PaymentRequestBody: Decodable {
        let method: String
        let client_secret: String?
        let client_ip: String?
        /// wechat.*: `v2` or `v3` (default: the server's configuration).
        let api: String?
        /// wechat.jsapi: the payer's openid for this appid.
        let openid: String?
        /// wechat.miniprogram: the code from `wx.login` (exchanged for the openid on the server).
        let js_code: String?
        /// alipay.wap / alipay.page: where Alipay sends the browser back.
        let return_url: String?
    }

    func startPayment(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) != nil else { return Self.unauthorized }
        guard let body = try? request.decodeJSON(PaymentRequestBody.self) else {
            return .error(
                status: 400, code: "invalid_request",
                message:
                    #"expected {"method":"wechat.app"|"wechat.jsapi"|"wechat.miniprogram"|"wechat.native"|"wechat.h5"|"alipay.app"|"alipay.wap"|"alipay.page"|"alipay.qr"|"applepay"}"#
            )
        }
        do {
            guard let (order, _) = try await authorizedOrder(request, id: id, clientSecret: body.client_secret) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            guard !order.status.hasReceivedMoney, order.status != .closed else {
                return .error(
                    status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue); it takes no new payment")
            }
            let (parameters, detail) = try await walletParameters(body, order: order)
            _ = try await move(
                .paymentStarted, to: order.id, refunded: nil, record: EventRecord(kind: "payment_started", detail: Self.detail(detail)),
                now: Date())
            let data = try JSONSerialization.data(withJSONObject: parameters, options: [.sortedKeys, .withoutEscapingSlashes])
            return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(data))
        } catch {
            return Self.failure(error)
        }
    }

    /// What the app hands to the wallet (a JSON object), and what the payment log remembers about it.
    func walletParameters(_ body: PaymentRequestBody, order: StoredOrder) async throws -> (json: [String: Any], detail: [String: String]) {
        let method = body.method
        let detail = ["method": method]
        switch method {
        case "wechat.app", "wechat.native", "wechat.h5", "wechat.jsapi", "wechat.miniprogram":
            return try await wechatParameters(body, order: order)
        case "alipay.wap", "alipay.page":
            guard let returnURL = body.return_url, URL(string: returnURL)?.scheme?.hasPrefix("http") == true else {
                throw PaymentError(.invalidRequest, "\(method) needs return_url, the page Alipay sends the browser back to")
            }
            let client = try alipayClient()
            let apiMethod = method == "alipay.wap" ? "alipay.trade.wap.pay" : "alipay.trade.page.pay"
            let url = try client.paymentPageURL(
                method: apiMethod, outTradeNo: order.outTradeNo, total: order.total, subject: order.description,
                notifyURL: notifyBase + "/notify/alipay", returnURL: returnURL)
            let form = try client.paymentPageForm(
                method: apiMethod, outTradeNo: order.outTradeNo, total: order.total, subject: order.description,
                notifyURL: notifyBase + "/notify/alipay", returnURL: returnURL)
            return (["method": method, "url": url.absoluteString, "form": form], detail)
        case "alipay.app", "alipay.qr":
            guard let alipay = configuration.alipay else { throw PaymentError(.invalidRequest, "Alipay is not configured on this server") }
            let signer = Alipay.Signer(privateKey: alipay.privateKey)
            if method == "alipay.app" {
                let biz = try JSONSerialization.data(
                    withJSONObject: [
                        "out_trade_no": order.outTradeNo, "total_amount": order.total.decimalString, "subject": order.description,
                    ],
                    options: [.sortedKeys])
                let orderString = try Alipay.OrderString.make(
                    appID: alipay.appID, signer: signer, notifyURL: notifyBase + "/notify/alipay",
                    bizContent: String(decoding: biz, as: UTF8.self))
                return (["method": method, "order_string": orderString], detail)
            }
            let qr = try await alipayClient().precreate(
                outTradeNo: order.outTradeNo, total: order.total, subject: order.description, notifyURL: notifyBase + "/notify/alipay")
            return (["method": method, "qr_code": qr], detail)
        case "applepay":
            guard let applePay = configuration.applePay else {
                throw PaymentError(.invalidRequest, "Apple Pay is not configured on this server")
            }
            let request = try ApplePay.PaymentRequest(
                merchantIdentifier: applePay.merchantIdentifier, countryCode: applePay.countryCode,
                items: [try LineItem(label: order.description, unitAmount: order.total)], totalLabel: applePay.displayName,
                supportedNetworks: applePay.supportedNetworks,
                merchantCapabilities: applePay.countryCode.alpha2 == "CN" || applePay.supportedNetworks.contains(.chinaUnionPay)
                    ? [.supports3DS, .supportsEMV] : [.supports3DS],
                applicationData: Array(order.id.utf8))
            return (["method": method, "payment_request": try request.jsonObject()], detail)
        default:
            throw PaymentError(
                .invalidRequest,
                "method '\(method)' is not one of wechat.app, wechat.jsapi, wechat.miniprogram, wechat.native, wechat.h5, alipay.app, "
                    + "alipay.wap, alipay.page, "
                    + "alipay.qr, applepay")
        }
    }

    /// `POST /v1/orders/{id}/payments/applepay/authorize`: verify, decrypt, check, authorise, record.
    func authorizeApplePay(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) != nil else { return Self.unauthorized }
        guard let applePay = configuration.applePay else {
            return .error(status: 400, code: "invalid_request", message: "Apple Pay is not configured on this server")
        }
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any], let token = body["token"],
            let tokenJSON = try? JSONSerialization.data(withJSONObject: token)
        else {
            return .error(status: 400, code: "invalid_request", message: #"expected {"token": <the PKPayment or its token as JSON>}"#)
        }
        do {
            guard let (order, _) = try await authorizedOrder(request, id: id, clientSecret: body["client_secret"] as? String) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            let payment: ApplePay.DecryptedPayment
            do {
                payment = try applePay.decrypter.decrypt(try ApplePay.PaymentToken(json: tokenJSON), applicationData: Array(order.id.utf8))
                SecretsAudit.shared?.secret([
                    payment.applicationPrimaryAccountNumber, payment.paymentData.onlinePaymentCryptogram, payment.paymentData.emvData,
                ])
                try payment.check(total: order.total)
            } catch let error as PaymentError {
                try await store.append(
                    EventRecord(kind: "applepay_refused", detail: Self.detail(["reason": error.message])), to: order.id, now: Date())
                return .json(
                    AuthorizationAnswer(
                        status: ApplePay.AuthorizationStatus.failure.rawValue, order_status: order.status.rawValue, message: error.message))
            }
            let decision = try await applePay.processor.authorize(payment, amount: order.total, reference: order.id)
            guard case .authorized(let reference) = decision else {
                try await store.append(
                    EventRecord(
                        kind: "applepay_declined",
                        detail: Self.detail(["card": payment.maskedAccountNumber, "status": "\(decision.status.rawValue)"])),
                    to: order.id, now: Date())
                return .json(
                    AuthorizationAnswer(status: decision.status.rawValue, order_status: order.status.rawValue, message: "declined"))
            }
            let outcome = try await move(
                .paymentSucceeded, to: order.id, refunded: nil,
                record: EventRecord(
                    kind: "applepay_authorized",
                    detail: Self.detail(["card": payment.maskedAccountNumber, "processor_reference": reference])),
                now: Date())
            let updated: StoredOrder
            switch outcome {
            case .applied(let order, _), .unchanged(let order): updated = order
            }
            return .json(AuthorizationAnswer(status: 0, order_status: updated.status.rawValue, message: "authorized"))
        } catch {
            return Self.failure(error)
        }
    }

    struct AuthorizationAnswer: Encodable {
        /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*`.
        let status: Int
        let order_status: String
        let message: String
    }
}

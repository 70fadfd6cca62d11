import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandboxMode
import Foundation
import WeChatPay

@testable import CashierServer

/// One cell of the authorisation matrix: a route, a credential and the state made for it — the
/// request a caller holding that credential would send, with a body the route would otherwise take.
struct MatrixCell {
    typealias Credential = AuthorizationMatrixTests.Credential

    struct Outcome: Sendable {
        let credential: Credential
        let status: Int
        let body: [UInt8]
        /// A notify route's cell: whether the order moved.
        let moved: Bool
        /// Where a redirect sends the browser.
        var location: String? = nil
    }

    let world: MatrixWorld
    let route: String
    let credential: Credential
    let made: MatrixWorld.Made
    let session: (id: String, csrf: String)

    /// The routes that take an order's client secret, and where: the query, or the body.
    static let secretInQuery: Set<String> = [
        "GET /v1/orders/{id}", "GET /v1/orders/{id}/stream", "GET /pay/{id}", "GET /pay/{id}/wechat",
    ]
    static let secretInBody: Set<String> = [
        "POST /v1/orders/{id}/payments", "POST /v1/orders/{id}/payments/applepay/authorize",
        "POST /v1/orders/{id}/payments/applepay/update", "POST /pay/{id}", "POST /pay/{id}/applepay/{step}",
    ]

    var withSecret: Bool { credential == .clientSecret }

    /// The key a credential sends as `Authorization: Bearer`, if any.
    var bearer: String? {
        switch credential {
        case .publishable, .clientSecret: world.fixture.keys.publishable
        case .merchant: world.northKey
        case .otherMerchant: world.southKey
        case .platform: world.fixture.keys.secret
        case .revoked: world.revokedKey
        case .none, .session, .expiredSession: nil
        }
    }

    var isSession: Bool { credential == .session || credential == .expiredSession }

    func request(address: String) -> HTTPServerRequest {
        let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
        let (method, pattern) = (parts[0], parts[1])
        let wrongSecret = made.orderID + "_secret_" + String(repeating: "0", count: 24)
        var path =
            pattern
            .replacingOccurrences(
                of: "{id}",
                with: pattern.hasPrefix("/dashboard/payments/")
                    ? made.paymentID
                    : pattern.contains("/webhooks/{id}")
                        ? made.webhookID
                        : pattern.contains("/complaints/{id}")
                            ? made.complaintID
                            : pattern.contains("/transfers/{id}")
                                ? made.transferID
                                : pattern.contains("/receivers/{id}")
                                    ? made.receiverID
                                    : pattern.hasPrefix("/v1/splits/{id}")
                                        ? made.splitID
                                        : pattern.hasPrefix("/dashboard/agreements/{id}") || pattern.hasPrefix("/v1/agreements/{id}")
                                            ? made.agreementID
                                            : pattern.hasPrefix("/dashboard/subscriptions/{id}")
                                                || pattern.hasPrefix("/v1/subscriptions/{id}")
                                                ? made.subscriptionID : made.orderID
            )
            .replacingOccurrences(of: "{index}", with: "0")
            .replacingOccurrences(of: "{merchant}", with: "north").replacingOccurrences(of: "{file}", with: "orders.csv")
            .replacingOccurrences(of: "{date}", with: world.today).replacingOccurrences(of: "{step}", with: "update")
            .replacingOccurrences(of: "{secret}", with: withSecret ? made.secret : wrongSecret)
        var query: [String] = []
        if withSecret, Self.secretInQuery.contains(route) { query.append("client_secret=\(made.secret)") }
        if route == "GET /v1/exports/{file}" || route == "GET /dashboard/export/{file}" {
            query += ["from=\(world.today)", "to=\(world.today)"]
        }
        if !query.isEmpty { path += "?" + query.joined(separator: "&") }

        var headers: [String: String] = [:]
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        if isSession { headers["Cookie"] = "cashier_session=\(session.id)" }
        var json: [String: Any]?
        var form: [(String, String)]?
        var raw: [UInt8] = []
        let secretField: [String: Any] = withSecret && Self.secretInBody.contains(route) ? ["client_secret": made.secret] : [:]
        let csrf: [(String, String)] = isSession ? [("csrf", session.csrf)] : []
        switch route {
        case "POST /v1/orders":
            json = ["items": [["label": "Latte", "amount": "6.00"]], "currency": "CNY", "description": "Latte"]
        case "POST /v1/orders/{id}/payments": json = ["method": "wechat.native"]
        case "POST /v1/orders/{id}/payments/applepay/authorize": json = ["token": made.token ?? [:]]
        case "POST /v1/orders/{id}/payments/applepay/update": json = ["coupon_code": "WELCOME10"]
        case "POST /v1/applepay/sessions":
            json = ["validation_url": world.fixture.sandbox.baseURL.absoluteString + "sandbox/applepay/paymentservices/startSession"]
        case "POST /v1/orders/{id}/refunds": json = ["amount": "1.00"]
        case "POST /v1/webhooks/resend": json = ["from": world.today, "to": world.today]
        case "POST /pay/{id}":
            form = (withSecret ? [("client_secret", made.secret)] : []) + [("method", "wechat.native")]
        case "POST /pay/{id}/applepay/{step}": json = ["coupon_code": "WELCOME10"]
        case "POST /dashboard/login":
            // The key the caller holds, typed into the form.
            form = [("secret_key", bearer ?? "")]
        case "POST /dashboard/orders/{id}/refund", "POST /dashboard/payments/{id}/refund": form = csrf + [("amount", "1.00")]
        case "POST /dashboard/webhooks/resend": form = csrf + [("from", world.today), ("to", world.today)]
        case "POST /v1/complaints/{id}/images":
            json = [
                "filename": "r.png",
                "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
            ]
        case "POST /v1/complaints/{id}/responses": json = ["text": "已处理"]
        case "POST /v1/transfers": json = MatrixWorld.transferBody
        case "POST /v1/receivers": json = MatrixWorld.receiverBody
        case "POST /v1/orders/{id}/splits": json = ["receivers": [["receiver": made.receiverID, "amount": 50, "description": "分成"]]]
        case "POST /v1/orders/{id}/splits/finish": json = [:]
        case "POST /v1/splits/{id}/returns": json = ["receiver": made.receiverID, "amount": 50, "description": "退回"]
        case "POST /v1/complaints/{id}/refund": json = ["decision": "approve"]
        case "POST /v1/agreements":
            json = ["method": "alipay.app", "description": "月度会员", "period": ["unit": "month", "count": 1], "single_limit": 3000]
        case "POST /v1/agreements/{id}/authorize": json = ["token": ["version": "EC_v1"]]
        case "POST /v1/subscriptions": json = ["agreement": made.agreementID, "amount": 990]
        case "POST /dashboard/complaints/{id}/reply": form = csrf + [("text", "已处理")]
        case "POST /dashboard/complaints/{id}/refund": form = csrf + [("decision", "approve")]
        default:
            if route.hasPrefix("POST /notify/") {
                (raw, headers) = forgedNotification(headers)
            } else if route.hasPrefix("POST /dashboard/") {
                form = csrf
            } else if method == "POST" {
                json = [:]
            }
        }
        if json != nil { json = (json ?? [:]).merging(secretField) { first, _ in first } }
        return InProcess.request(method, path, headers: headers, json: json, form: form, body: raw, from: address)
    }

    /// A notification for the cell's pending payment, as someone without the provider's key could make it.
    func forgedNotification(_ given: [String: String]) -> ([UInt8], [String: String]) {
        var headers = given
        let configuration = world.server.configuration
        let sp = configuration.serviceProvider?.wechat?.merchant
        let stranger = WeChatPay.V2.Merchant(appID: sp?.appID ?? "", mchID: sp?.mchID ?? "", apiKey: String(repeating: "f", count: 32))
        switch route {
        case "POST /notify/wechat/v2", "POST /notify/wechat/v2/m/{merchant}":
            var fields: [(String, String)] = [
                ("appid", stranger.appID), ("mch_id", stranger.mchID), ("sub_mch_id", SandboxMode.subMerchantWeChatID),
                ("nonce_str", "n0nce"), ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", made.outTradeNo),
                ("transaction_id", "4200000000000000000000000001"), ("total_fee", "600"), ("fee_type", "CNY"), ("trade_type", "NATIVE"),
                ("openid", "oForger"), ("time_end", "20261207120000"),
            ]
            fields.append(("sign", stranger.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: .md5)))
            headers["Content-Type"] = "text/xml"
            return (Array(WeChatPay.V2.XMLDocument(fields).xmlString.utf8), headers)
        case "POST /notify/wechat/v2/refund", "POST /notify/wechat/v2/m/{merchant}/refund":
            let inner = WeChatPay.V2.XMLDocument(
                root: "root",
                [
                    ("out_refund_no", "R" + made.outTradeNo), ("out_trade_no", made.outTradeNo), ("refund_fee", "600"),
                    ("refund_status", "SUCCESS"), ("total_fee", "600"),
                ])
            let key = Array(Hex.encode(DigestAlgorithm.insecureMD5.hash(stranger.apiKey)).utf8)
            let encrypted = (try? InsecureAESECB.encrypt(Array(inner.xmlString.utf8), key: key)) ?? []
            let outer = WeChatPay.V2.XMLDocument([
                ("return_code", "SUCCESS"), ("appid", stranger.appID), ("mch_id", stranger.mchID),
                ("sub_mch_id", SandboxMode.subMerchantWeChatID), ("nonce_str", "n0nce"), ("req_info", Base64.encode(encrypted)),
            ])
            headers["Content-Type"] = "text/xml"
            return (Array(outer.xmlString.utf8), headers)
        case "POST /notify/wechat/v3", "POST /notify/wechat/v3/m/{merchant}", "POST /notify/wechat/v3/complaints",
            "POST /notify/wechat/v3/transfers":
            headers["Content-Type"] = "application/json"
            headers["Wechatpay-Timestamp"] = String(Int(Date().timeIntervalSince1970))
            headers["Wechatpay-Nonce"] = "n0nce"
            headers["Wechatpay-Signature"] = Base64.encode(Array(repeating: 7, count: 256))
            headers["Wechatpay-Serial"] = "PUB_KEY_ID_0100000000000000000000000000"
            let body =
                #"{"id":"EV-1","event_type":"TRANSACTION.SUCCESS","resource_type":"encrypt-resource","resource":{"algorithm":"AEAD_AES_256_GCM","ciphertext":"AAAA","nonce":"n0nce","associated_data":"transaction"}}"#
            return (Array(body.utf8), headers)
        case "POST /notify/alipay", "POST /notify/alipay/m/{merchant}":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            let fields = [
                ("notify_type", "trade_status_sync"), ("notify_id", "n1"), ("app_id", configuration.alipay?.appID ?? ""),
                ("auth_app_id", SandboxMode.subMerchantAlipayAppID), ("out_trade_no", made.outTradeNo), ("trade_no", "2026120722001"),
                ("trade_status", "TRADE_SUCCESS"), ("total_amount", "6.00"), ("seller_id", configuration.alipay?.sellerID ?? ""),
                ("sign_type", "RSA2"), ("sign", Base64.encode(Array(repeating: 9, count: 256))),
            ]
            return (Array(fields.map { "\(InProcess.escape($0.0))=\(InProcess.escape($0.1))" }.joined(separator: "&").utf8), headers)
        case "POST /notify/alipay/gateway":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            let fields = [
                ("msg_method", "alipay.trade.order.settle.notify"), ("app_id", configuration.alipay?.appID ?? ""), ("version", "1.1"),
                ("notify_id", "n1"), ("utc_timestamp", "1796113830000"), ("charset", "utf-8"),
                ("biz_content", #"{"out_request_no":"S1","trade_no":"2026120722001","status":"SUCCESS"}"#), ("sign_type", "RSA2"),
                ("sign", Base64.encode(Array(repeating: 9, count: 256))),
            ]
            return (Array(fields.map { "\(InProcess.escape($0.0))=\(InProcess.escape($0.1))" }.joined(separator: "&").utf8), headers)
        case "POST /notify/wechat/v2/contracts":
            // A contract signed, signed with a key that is not the merchant's.
            var fields: [(String, String)] = [
                ("return_code", "SUCCESS"), ("result_code", "SUCCESS"), ("mch_id", configuration.wechat?.merchant.mchID ?? ""),
                ("change_type", "ADD"), ("contract_code", "Aforged"), ("plan_id", "12535"), ("openid", "oForger"),
                ("contract_id", "200000000000000001"), ("operate_time", "2026-12-07 12:00:00"), ("request_serial", "1"),
            ]
            fields.append(("sign", stranger.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: .md5)))
            headers["Content-Type"] = "text/xml"
            return (Array(WeChatPay.V2.XMLDocument(fields).xmlString.utf8), headers)
        case "POST /notify/alipay/agreements":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            let fields = [
                ("notify_type", "dut_user_sign"), ("notify_id", "n1"), ("app_id", configuration.alipay?.appID ?? ""),
                ("agreement_no", "20215314000000000001"), ("external_agreement_no", "Aforged"), ("status", "NORMAL"),
                ("personal_product_code", "CYCLE_PAY_AUTH_P"), ("sign_scene", "INDUSTRY|DIGITAL_MEDIA"),
                ("alipay_user_id", "2088000000000001"),
                ("sign_type", "RSA2"), ("sign", Base64.encode(Array(repeating: 9, count: 256))),
            ]
            return (Array(fields.map { "\(InProcess.escape($0.0))=\(InProcess.escape($0.1))" }.joined(separator: "&").utf8), headers)
        case "POST /notify/unionpay":
            // A consume's success, signed by no one UnionPay's root vouches for.
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            let fields = [
                ("version", "5.1.0"), ("encoding", "UTF-8"), ("signMethod", "01"), ("txnType", "01"), ("txnSubType", "01"),
                ("bizType", "000201"), ("accessType", "0"), ("merId", configuration.unionpay?.merchantID ?? ""),
                ("orderId", made.outTradeNo), ("txnTime", "20261207120000"), ("txnAmt", "600"), ("currencyCode", "156"),
                ("queryId", "999999999999999999999"), ("respCode", "00"), ("respMsg", "success"),
                ("signPubKeyCert", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"),
                ("signature", Base64.encode(Array(repeating: 9, count: 256))),
            ]
            return (Array(fields.map { "\(InProcess.escape($0.0))=\(InProcess.escape($0.1))" }.joined(separator: "&").utf8), headers)
        case "POST /notify/stripe":
            headers["Content-Type"] = "application/json"
            headers["Stripe-Signature"] = "t=\(Int(Date().timeIntervalSince1970)),v1=" + String(repeating: "0", count: 64)
            return (
                Array(
                    #"{"id":"evt_forged","type":"charge.refunded","data":{"object":{"id":"ch_forged","payment_intent":"pi_forged"}}}"#.utf8),
                headers
            )
        default:  // POST /notify/adyen
            headers["Content-Type"] = "application/json"
            let body =
                #"{"live":"false","notificationItems":[{"NotificationRequestItem":{"eventCode":"AUTHORISATION","success":"true","pspReference":"FORGED","merchantReference":"\#(made.outTradeNo)","amount":{"value":600,"currency":"CNY"},"additionalData":{"hmacSignature":"AAAA"}}}]}"#
            return (Array(body.utf8), headers)
        }
    }
}

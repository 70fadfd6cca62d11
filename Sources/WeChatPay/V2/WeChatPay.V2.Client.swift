public import Cashier
import CashierCrypto
public import Foundation

extension WeChatPay.V2 {
    /// Calls the v2 gateway: signs each request, and verifies each response before using it.
    ///
    /// A response is used only after `return_code` is `SUCCESS`, its signature verifies with the
    /// merchant's key and sign type, and its `appid`/`mch_id` are the merchant's; a business
    /// failure (`result_code` `FAIL`) becomes `PaymentError.providerRejected` carrying `err_code`
    /// and `err_code_des` verbatim. Every call is idempotent by its trade or refund number, so a
    /// retry after a transport error is safe.
    ///
    /// ```swift
    /// let client = WeChatPay.V2.Client(merchant: merchant, baseURL: sandboxURL)
    /// let prepay = try await client.unifiedOrder(.init(tradeType: .app, body: "2 lattes", outTradeNo: order.outTradeNo,
    ///                                                  total: order.total, notifyURL: notifyURL, clientIP: "203.0.113.7"))
    /// ```
    public struct Client: Sendable {
        /// WeChat's production gateway.
        public static let productionURL = URL(string: "https://api.mch.weixin.qq.com/")!

        public let merchant: Merchant
        let transport: any HTTPTransport
        /// Used for `secapi/` endpoints (refunds), which require the merchant certificate on the
        /// TLS connection: a `CurlTransport` with the certificate in production.
        private let mutualTLSTransport: (any HTTPTransport)?
        let baseURL: URL
        let sandboxPrefix: Bool
        /// Service-provider mode (服务商): every call names this sub-merchant (`sub_mch_id`, and
        /// `sub_appid` when it pays for its own app); answers must name it too.
        public var subMerchant: SubMerchant?

        /// A service provider's sub-merchant, as v2 calls name it.
        public struct SubMerchant: Sendable, Equatable {
            /// `sub_mch_id`.
            public let mchID: String
            /// `sub_appid`.
            public let appID: String?
            public init(mchID: String, appID: String? = nil) {
                self.mchID = mchID
                self.appID = appID
            }
        }

        /// - Parameters:
        ///   - merchant: appid, mch_id, API key and sign type.
        ///   - transport: how requests travel (URLSession by default; the sandbox or a fault injector in tests).
        ///   - mutualTLSTransport: how `secapi/` calls (refunds) travel; they need the merchant certificate.
        ///   - baseURL: the gateway, ending in `/`.
        ///   - sandboxPrefix: put WeChat's `sandboxnew/` before every endpoint (WeChat's own sandbox mode).
        public init(
            merchant: Merchant, transport: any HTTPTransport = URLSessionTransport(), mutualTLSTransport: (any HTTPTransport)? = nil,
            baseURL: URL = productionURL, sandboxPrefix: Bool = false
        ) {
            self.merchant = merchant
            self.transport = transport
            self.mutualTLSTransport = mutualTLSTransport
            self.baseURL = baseURL
            self.sandboxPrefix = sandboxPrefix
        }

        /// Signs `fields` (adding appid, mch_id, nonce_str and sign_type), posts them to `endpoint`,
        /// and returns the verified response.
        public func call(_ endpoint: String, _ fields: [(String, String)], timeout: Duration = .seconds(10)) async throws -> XMLDocument {
            let response = try await post(endpoint, fields, timeout: timeout)
            let document = try XMLDocument(parsing: Array(response.body))
            guard document["return_code"] == "SUCCESS" else {
                throw PaymentError(
                    .providerRejected, provider: .wechatV2, "\(endpoint) failed: \(document["return_msg"] ?? "no return_msg")",
                    providerCode: document["return_code"], providerMessage: document["return_msg"])
            }
            try VerifiedDocument.check(document, merchant: merchant, signType: merchant.signType, signed: true)
            if let subMerchant, let named = document["sub_mch_id"], named != subMerchant.mchID {
                throw PaymentError(
                    .merchantMismatch, provider: .wechatV2, "\(endpoint) answered for sub_mch_id \(named), not \(subMerchant.mchID)")
            }
            guard document["result_code"] == "SUCCESS" else {
                throw PaymentError(
                    .providerRejected, provider: .wechatV2,
                    "\(endpoint) refused: \(document["err_code_des"] ?? document["err_code"] ?? "result_code FAIL")",
                    providerCode: document["err_code"], providerMessage: document["err_code_des"])
            }
            return document
        }

        /// Signs and posts; returns the raw answer of an HTTP 200.
        private func post(_ endpoint: String, _ fields: [(String, String)], timeout: Duration) async throws -> HTTPResponse {
            var request = [("appid", merchant.appID), ("mch_id", merchant.mchID)]
            if let subMerchant {
                request.append(("sub_mch_id", subMerchant.mchID))
                if let appID = subMerchant.appID { request.append(("sub_appid", appID)) }
            }
            request += [("nonce_str", SecureRandom.alphanumeric(count: 32))] + fields
            if merchant.signType != .md5 { request.append(("sign_type", merchant.signType.rawValue)) }
            request.append(("sign", merchant.signer.signature(for: request.map { (key: $0.0, value: $0.1) }, type: merchant.signType)))
            let url = URL(string: (sandboxPrefix ? "sandboxnew/" : "") + endpoint, relativeTo: baseURL)!.absoluteURL
            // Refunds, reversals and the fund-flow bill need the merchant's API certificate.
            let chosen = endpoint.hasPrefix("secapi/") || endpoint == "pay/downloadfundflow" ? mutualTLSTransport ?? transport : transport
            let response = try await chosen.send(
                HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "text/xml; charset=utf-8"],
                    body: Data(XMLDocument(request).xmlString.utf8), timeout: timeout))
            guard response.status == 200 else {
                throw PaymentError(.transport, provider: .wechatV2, "\(endpoint) answered HTTP \(response.status)")
            }
            return response
        }

        /// Downloads the trade bill of a day (`pay/downloadbill`).
        /// - Parameters:
        ///   - date: `yyyyMMdd`, Beijing time.
        ///   - type: `ALL`, `SUCCESS` or `REFUND`.
        /// - Throws: `PaymentError.providerRejected` with WeChat's `return_msg` (e.g. "No Bill Exist").
        public func downloadBill(date: String, type: String = "ALL") async throws -> WeChatPay.Bill {
            try WeChatPay.Bill(parsing: try await billText("pay/downloadbill", [("bill_date", date), ("bill_type", type)]))
        }

        /// ``downloadBill(date:type:)``'s bill as a reader of its rows, one at a time (a bill of
        /// millions of lines need not be held as rows; its text is).
        ///
        /// The bill is asked for gzipped (`tar_type=GZIP`, a fifth of the bytes) and inflated as
        /// its rows are read: a bill of a million lines is held as its compressed file alone.
        public func downloadBillRows(date: String, type: String = "ALL") async throws -> WeChatPay.Bill.Reader {
            try WeChatPay.Bill.Reader(
                file: try await billFile("pay/downloadbill", [("bill_date", date), ("bill_type", type), ("tar_type", "GZIP")]))
        }

        /// A bill's text; WeChat answers a refusal ("No Bill Exist") as XML instead.
        private func billText(_ endpoint: String, _ fields: [(String, String)]) async throws -> String {
            String(decoding: try await billFile(endpoint, fields), as: UTF8.self)
        }

        /// A bill's file as served (text, or gzip when asked for); WeChat answers a refusal ("No
        /// Bill Exist") as XML instead.
        private func billFile(_ endpoint: String, _ fields: [(String, String)]) async throws -> Data {
            let response = try await post(endpoint, fields, timeout: .seconds(60))
            if response.body.starts(with: Array("<xml>".utf8)) {
                let document = try XMLDocument(parsing: Array(response.body))
                throw PaymentError(
                    .providerRejected, provider: .wechatV2, "\(endpoint) refused: \(document["return_msg"] ?? "no bill")",
                    providerCode: document["error_code"] ?? document["return_code"], providerMessage: document["return_msg"])
            }
            return response.body
        }

        /// Downloads the fund-flow bill (资金账单) of a day (`pay/downloadfundflow`: always signed
        /// with HMAC-SHA256, over the merchant's API certificate).
        /// - Parameters:
        ///   - date: `yyyyMMdd`, Beijing time.
        ///   - account: `Basic`, `Operation` or `Fees`.
        public func downloadFundFlow(date: String, account: String = "Basic") async throws -> WeChatPay.FundFlowBill {
            // The account is the merchant's (a service provider's) own: no sub_mch_id.
            let signing = Client(
                merchant: Merchant(appID: merchant.appID, mchID: merchant.mchID, apiKey: merchant.apiKey, signType: .hmacSHA256),
                transport: transport, mutualTLSTransport: mutualTLSTransport, baseURL: baseURL, sandboxPrefix: sandboxPrefix)
            return try WeChatPay.FundFlowBill(
                parsing: try await signing.billText("pay/downloadfundflow", [("bill_date", date), ("account_type", account)]))
        }

        /// WeChat's own sandbox key (`sandboxnew/pay/getsignkey`), for clients made with `sandboxPrefix`.
        public func sandboxSignKey() async throws -> String {
            try await call("pay/getsignkey", [])["sandbox_signkey"] ?? ""
        }

        /// Places an order (`pay/unifiedorder`).
        public func unifiedOrder(_ order: UnifiedOrder) async throws -> UnifiedOrder.Result {
            if order.tradeType == .mweb, order.h5Site == nil {
                throw PaymentError(
                    .invalidRequest, provider: .wechatV2,
                    "an H5 (MWEB) order needs h5Site: WeChat Pay requires scene_info's h5_info (the site's wap_url and wap_name)")
            }
            let document = try await call("pay/unifiedorder", order.fields)
            guard let prepayID = document["prepay_id"], !prepayID.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "pay/unifiedorder answered without prepay_id")
            }
            return UnifiedOrder.Result(prepayID: prepayID, codeURL: document["code_url"], mwebURL: document["mweb_url"], document: document)
        }

        /// Asks where an order stands (`pay/orderquery`).
        /// - Throws: `malformedMessage` for an answer about another trade, or one that says paid
        ///   without naming the trade and its amount: nothing is taken as paid that the answer does not say.
        public func orderQuery(outTradeNo: String) async throws -> OrderStatus {
            try await orderStatus("pay/orderquery", outTradeNo: outTradeNo)
        }

        /// `endpoint`'s answer about `outTradeNo`, held to naming that trade, and to naming its
        /// amount when it says paid.
        func orderStatus(_ endpoint: String, outTradeNo: String) async throws -> OrderStatus {
            let status = try OrderStatus(try await call(endpoint, [("out_trade_no", outTradeNo)]))
            if let echoed = status.outTradeNo, echoed != outTradeNo {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "\(endpoint) answered about \(echoed), not \(outTradeNo)")
            }
            if status.isPaid, status.outTradeNo == nil || status.amount == nil {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV2, "\(endpoint) says \(status.tradeState) without out_trade_no and total_fee")
            }
            return status
        }

        /// Closes an unpaid order (`pay/closeorder`).
        public func closeOrder(outTradeNo: String) async throws {
            _ = try await call("pay/closeorder", [("out_trade_no", outTradeNo)])
        }

        /// Refunds part or all of a paid order (`secapi/pay/refund`; mutual TLS in production).
        /// - Returns: WeChat's refund id.
        public func refund(
            outTradeNo: String, outRefundNo: String, total: Money, refund: Money, reason: String? = nil, notifyURL: String? = nil
        ) async throws -> String {
            var fields = [
                ("out_trade_no", outTradeNo), ("out_refund_no", outRefundNo), ("total_fee", String(total.minorUnits)),
                ("refund_fee", String(refund.minorUnits)), ("refund_fee_type", refund.currency.code),
            ]
            if let reason { fields.append(("refund_desc", reason)) }
            if let notifyURL { fields.append(("notify_url", notifyURL)) }
            return try await call("secapi/pay/refund", fields)["refund_id"] ?? ""
        }

        /// Collects a payment with the payer's payment code (`pay/micropay`).
        /// - Returns: paid, waiting for the payer's password (`USERPAYING`), or unknown
        ///   (`SYSTEMERROR`, `BANKERROR`): query either way.
        /// - Throws: WeChat's refusal (`AUTHCODEEXPIRE`, `AUTH_CODE_INVALID`, `NOTENOUGH`,
        ///   `ORDERPAID`, …) as `PaymentError.providerRejected`.
        public func micropay(_ request: Micropay) async throws -> MicropayAnswer {
            let document: XMLDocument
            do {
                document = try await call("pay/micropay", request.fields, timeout: .seconds(15))
            } catch let error as PaymentError where error.providerCode == "USERPAYING" {
                return .waiting
            } catch let error as PaymentError where ["SYSTEMERROR", "BANKERROR"].contains(error.providerCode ?? "") {
                return .unknown(error.providerCode ?? "SYSTEMERROR")
            }
            guard let transactionID = document["transaction_id"], !transactionID.isEmpty else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "pay/micropay answered SUCCESS without transaction_id")
            }
            // "Paid" counts for this trade only: an answer naming another (a mixed-up proxy, a
            // replayed answer) is no payment of this one.
            guard document["out_trade_no"] == request.outTradeNo else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV2,
                    "pay/micropay answered about \(document["out_trade_no"] ?? "no trade"), not \(request.outTradeNo)")
            }
            return .paid(amount: try VerifiedDocument.money(document, amountField: "total_fee"), transactionID: transactionID)
        }

        /// Reverses a payment-code payment (`secapi/pay/reverse`; mutual TLS in production): an
        /// unpaid one is closed, a paid one is refunded in full. - Returns: `true` when WeChat
        /// asks for the call to be made again (`recall` `Y`).
        public func reverse(outTradeNo: String) async throws -> Bool {
            try await call("secapi/pay/reverse", [("out_trade_no", outTradeNo)])["recall"] == "Y"
        }

        /// Asks where the refunds of an order stand (`pay/refundquery`).
        public func refundQuery(outRefundNo: String) async throws -> XMLDocument {
            try await call("pay/refundquery", [("out_refund_no", outRefundNo)])
        }
    }

    /// A `pay/unifiedorder` request.
    public struct UnifiedOrder: Sendable {
        /// APP, JSAPI (also mini programs), NATIVE (QR code) or MWEB (H5).
        public enum TradeType: String, Sendable {
            case app = "APP"
            case jsapi = "JSAPI"
            case native = "NATIVE"
            case mweb = "MWEB"
        }

        /// What `pay/unifiedorder` answered.
        public struct Result: Sendable {
            public let prepayID: String
            /// NATIVE: the QR code's content.
            public let codeURL: String?
            /// MWEB: the page to open.
            public let mwebURL: String?
            public let document: XMLDocument
        }

        public var tradeType: TradeType
        public var body: String
        public var outTradeNo: String
        public var total: Money
        public var notifyURL: String
        public var clientIP: String
        /// JSAPI: the payer's openid.
        public var openID: String?
        /// NATIVE: the merchant's product id.
        public var productID: String?
        /// Returned untouched in the notification (at most 127 bytes).
        public var attach: String?
        /// `detail`: the goods, as WeChat's JSON.
        public var goods: [GoodsLine] = []
        /// After this the payer can no longer pay it (`time_expire`, Beijing time).
        public var expiresAt: Date?
        /// MWEB (H5): the mobile site the payer pays from, sent as `scene_info`
        /// (`{"h5_info":{"type":"Wap","wap_url":…,"wap_name":…}}`), which WeChat Pay requires for H5.
        public var h5Site: H5Site?

        /// A mobile web site, as H5 payments name it.
        public struct H5Site: Sendable, Equatable {
            /// `wap_url`: the site's address.
            public var url: String
            /// `wap_name`: the site's name.
            public var name: String

            public init(url: String, name: String) {
                self.url = url
                self.name = name
            }

            /// `scene_info`'s JSON.
            public var sceneInfo: String {
                "{\"h5_info\":{\"type\":\"Wap\",\"wap_url\":\(JSONText.quoted(url)),\"wap_name\":\(JSONText.quoted(name))}}"
            }
        }

        public init(
            tradeType: TradeType, body: String, outTradeNo: String, total: Money, notifyURL: String, clientIP: String,
            openID: String? = nil, productID: String? = nil, attach: String? = nil, goods: [GoodsLine] = [], expiresAt: Date? = nil,
            h5Site: H5Site? = nil
        ) {
            self.tradeType = tradeType
            self.body = body
            self.outTradeNo = outTradeNo
            self.total = total
            self.notifyURL = notifyURL
            self.clientIP = clientIP
            self.openID = openID
            self.productID = productID
            self.attach = attach
            self.goods = goods
            self.expiresAt = expiresAt
            self.h5Site = h5Site
        }

        var fields: [(String, String)] {
            var fields = [
                ("body", body), ("out_trade_no", outTradeNo), ("total_fee", String(total.minorUnits)), ("fee_type", total.currency.code),
                ("spbill_create_ip", clientIP), ("notify_url", notifyURL), ("trade_type", tradeType.rawValue),
            ]
            if let openID { fields.append(("openid", openID)) }
            if let productID { fields.append(("product_id", productID)) }
            if let h5Site { fields.append(("scene_info", h5Site.sceneInfo)) }
            return fields + Self.optionalFields(attach: attach, goods: goods, expiresAt: expiresAt)
        }

        /// `attach`, `detail` and `time_expire`, when there are any: the same in every v2 order call.
        static func optionalFields(attach: String?, goods: [GoodsLine], expiresAt: Date?) -> [(String, String)] {
            var fields: [(String, String)] = []
            if let attach { fields.append(("attach", attach)) }
            if !goods.isEmpty { fields.append(("detail", goodsDetail(goods))) }
            if let expiresAt { fields.append(("time_expire", BeijingTime.string(from: expiresAt, .compact))) }
            return fields
        }

        /// `{"goods_detail":[{"goods_id":…,"goods_name":…,"quantity":…,"price":…}]}`, prices in fen.
        static func goodsDetail(_ goods: [GoodsLine]) -> String {
            let lines = goods.map {
                "{\"goods_id\":\(JSONText.quoted($0.id)),\"goods_name\":\(JSONText.quoted($0.name)),\"quantity\":\($0.quantity),"
                    + "\"price\":\($0.unitPrice.minorUnits)}"
            }
            return "{\"goods_detail\":[" + lines.joined(separator: ",") + "]}"
        }
    }

    /// Where an order stands, from `pay/orderquery`.
    public struct OrderStatus: Sendable {
        /// `SUCCESS`, `REFUND`, `NOTPAY`, `CLOSED`, `REVOKED`, `USERPAYING` or `PAYERROR`; a
        /// withholding deduction's (`pay/paporderquery`) also `ACCEPT` (accepted, not yet deducted)
        /// and `PAY_FAIL` (the deduction failed).
        public let tradeState: String
        /// The amount, once paid.
        public let amount: Money?
        public let transactionID: String?
        /// The trade the answer is about.
        public let outTradeNo: String?
        public let document: XMLDocument

        init(_ document: XMLDocument) throws {
            guard let state = document["trade_state"] else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "the order query answered without trade_state")
            }
            tradeState = state
            amount = document["total_fee"] == nil ? nil : try VerifiedDocument.money(document, amountField: "total_fee")
            transactionID = document["transaction_id"]
            outTradeNo = document["out_trade_no"]
            self.document = document
        }

        /// `true` when the money arrived (`SUCCESS`, or `REFUND` after a refund).
        public var isPaid: Bool { tradeState == "SUCCESS" || tradeState == "REFUND" }
    }
}

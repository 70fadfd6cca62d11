public import Cashier
public import CashierCrypto
public import Foundation

extension Alipay {
    /// Calls Alipay's open-API gateway: signs each request (common parameters + `biz_content`),
    /// and verifies each answer over its raw response node before reading it. Errors mirror
    /// Alipay's `code`/`msg`/`sub_code`/`sub_msg` (`providerCode` is `sub_code`, else `code`).
    ///
    /// ```swift
    /// let client = Alipay.Client(appID: appID, signer: signer, alipayPublicKey: alipayKey)
    /// let trade = try await client.query(outTradeNo: order.outTradeNo)
    /// ```
    public struct Client: Sendable {
        /// Alipay's production gateway.
        public static let productionURL = URL(string: "https://openapi.alipay.com/gateway.do")!

        public let appID: String
        private let signer: Signer
        private let alipayPublicKey: RSAPublicKey
        private let transport: any HTTPTransport
        let gateway: URL
        private let signType: SignType
        private let certificates: CertificateMode?
        private let appAuthToken: String?

        /// A client in public-key mode (the Alipay public key from the console). `appAuthToken` is
        /// the merchant's `app_auth_token` when a service provider calls for it.
        public init(
            appID: String, signer: Signer, alipayPublicKey: RSAPublicKey, transport: any HTTPTransport = URLSessionTransport(),
            gateway: URL = productionURL, signType: SignType = .rsa2, appAuthToken: String? = nil
        ) {
            self.appID = appID
            self.signer = signer
            self.alipayPublicKey = alipayPublicKey
            self.transport = transport
            self.gateway = gateway
            self.signType = signType
            self.certificates = nil
            self.appAuthToken = appAuthToken
        }

        /// A client in certificate mode: requests carry the certificate SNs, and every answer's
        /// `alipay_cert_sn` must name the loaded Alipay certificate before its key verifies it.
        public init(
            appID: String, signer: Signer, certificates: CertificateMode, transport: any HTTPTransport = URLSessionTransport(),
            gateway: URL = productionURL, signType: SignType = .rsa2, appAuthToken: String? = nil
        ) {
            self.appID = appID
            self.signer = signer
            self.alipayPublicKey = certificates.alipayPublicKey
            self.transport = transport
            self.gateway = gateway
            self.signType = signType
            self.certificates = certificates
            self.appAuthToken = appAuthToken
        }

        /// The signed parameters of a call.
        public func signedParameters(method: String, biz: [String: Any], notifyURL: String? = nil, returnURL: String? = nil) throws
            -> [String: String]
        {
            let bizContent = String(decoding: try JSONSerialization.data(withJSONObject: biz, options: [.sortedKeys]), as: UTF8.self)
            var parameters = OrderString.commonParameters(
                appID: appID, method: method, notifyURL: notifyURL, bizContent: bizContent, timestamp: Date(), signType: signType,
                certificates: certificates, appAuthToken: appAuthToken)
            if let returnURL { parameters["return_url"] = returnURL }
            parameters["sign"] = try signer.signature(for: parameters, type: signType)
            return parameters
        }

        /// Calls `method` and returns its verified response node, decoded.
        public func call(_ method: String, biz: [String: Any], notifyURL: String? = nil) async throws -> [String: Any] {
            let object = try await answer(method, biz: biz, notifyURL: notifyURL)
            guard object["code"] as? String == "10000" else {
                let code = object["code"] as? String
                let subCode = object["sub_code"] as? String
                throw PaymentError(
                    .providerRejected, provider: .alipay,
                    "\(method) refused: \(object["sub_msg"] as? String ?? object["msg"] as? String ?? "no message")",
                    providerCode: subCode ?? code, providerMessage: object["sub_msg"] as? String ?? object["msg"] as? String,
                    details: "code \(code ?? "?") msg \(object["msg"] as? String ?? "?")")
            }
            return object
        }

        /// Calls `method` and returns its verified response node, decoded, whatever its `code`
        /// (``call(_:biz:notifyURL:)`` throws for anything but `10000`).
        /// - Throws: `.transport`, `.malformedMessage`, `.signatureMismatch`, `.unknownKey`.
        func answer(_ method: String, biz: [String: Any], notifyURL: String? = nil) async throws -> [String: Any] {
            let parameters = try signedParameters(method: method, biz: biz, notifyURL: notifyURL)
            let body = FormBody.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            let response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: gateway.absoluteString + "?charset=utf-8")!,
                    headers: ["Content-Type": "application/x-www-form-urlencoded;charset=utf-8"], body: Data(body.utf8)))
            guard response.status == 200 else {
                throw PaymentError(.transport, provider: .alipay, "\(method) answered HTTP \(response.status)")
            }
            let text = String(decoding: response.body, as: UTF8.self)
            let nodeName = method.replacingOccurrences(of: ".", with: "_") + "_response"
            let node = try ResponseNode(text: text, name: nodeName)
            try certificates?.check(alipayCertSN: node.alipayCertSN)
            try node.verify(publicKey: alipayPublicKey, signType: signType)
            guard let object = (try? JSONSerialization.jsonObject(with: Data(node.raw.utf8))) as? [String: Any] else {
                throw PaymentError(.malformedMessage, provider: .alipay, "\(nodeName) is not a JSON object")
            }
            return object
        }

        /// A QR-code order (`alipay.trade.precreate`). - Returns: the QR code's content.
        public func precreate(outTradeNo: String, total: Money, subject: String, notifyURL: String, extras: TradeExtras = TradeExtras())
            async throws -> String
        {
            let biz: [String: Any] = ["out_trade_no": outTradeNo, "total_amount": total.decimalString, "subject": subject]
            let node = try await call("alipay.trade.precreate", biz: biz.merging(extras.biz) { first, _ in first }, notifyURL: notifyURL)
            guard let qr = node["qr_code"] as? String else {
                throw PaymentError(.malformedMessage, provider: .alipay, "alipay.trade.precreate answered without qr_code")
            }
            return qr
        }

        /// Collects a payment with the payer's payment code (`alipay.trade.pay`, scene `bar_code`).
        /// - Throws: Alipay's refusal (`ACQ.PAYMENT_AUTH_CODE_INVALID`, `ACQ.BUYER_BALANCE_NOT_ENOUGH`, …).
        public func pay(
            outTradeNo: String, total: Money, subject: String, authCode: String, notifyURL: String? = nil,
            extras: TradeExtras = TradeExtras()
        ) async throws -> BarcodeAnswer {
            let biz: [String: Any] = [
                "out_trade_no": outTradeNo, "total_amount": total.decimalString, "subject": subject, "scene": "bar_code",
                "auth_code": authCode, "product_code": "FACE_TO_FACE_PAYMENT",
            ]
            let node: [String: Any]
            do {
                node = try await call("alipay.trade.pay", biz: biz.merging(extras.biz) { first, _ in first }, notifyURL: notifyURL)
            } catch let error as PaymentError where error.providerCode == "10003" {
                return .waiting
            } catch let error as PaymentError where ["20000", "ACQ.SYSTEM_ERROR", "isp.unknow-error"].contains(error.providerCode ?? "") {
                return .unknown(error.providerCode ?? "20000")
            }
            guard let tradeNo = node["trade_no"] as? String, let text = node["total_amount"] as? String,
                let amount = try? Money(decimal: text, currency: .cny)
            else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay, "alipay.trade.pay answered 10000 without trade_no and total_amount")
            }
            // "Paid" counts for this trade only: an answer naming another is no payment of this one.
            guard node["out_trade_no"] as? String == outTradeNo else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay,
                    "alipay.trade.pay answered about \(node["out_trade_no"] as? String ?? "no trade"), not \(outTradeNo)")
            }
            return .paid(amount: amount, tradeNo: tradeNo)
        }

        /// Cancels a trade (`alipay.trade.cancel`): an unpaid one is closed, a paid one refunded in
        /// full. - Returns: `true` when Alipay asks for the call to be made again (`retry_flag` `Y`).
        public func cancel(outTradeNo: String) async throws -> Bool {
            try await call("alipay.trade.cancel", biz: ["out_trade_no": outTradeNo])["retry_flag"] as? String == "Y"
        }

        /// Where a trade stands (`alipay.trade.query`).
        /// - Throws: `malformedMessage` for an answer about another trade.
        public func query(outTradeNo: String) async throws -> Trade {
            let trade = try Trade(try await call("alipay.trade.query", biz: ["out_trade_no": outTradeNo]))
            guard trade.outTradeNo == outTradeNo else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay, "alipay.trade.query answered about \(trade.outTradeNo), not \(outTradeNo)")
            }
            return trade
        }

        /// Closes an unpaid trade (`alipay.trade.close`).
        public func close(outTradeNo: String) async throws {
            _ = try await call("alipay.trade.close", biz: ["out_trade_no": outTradeNo])
        }

        /// Refunds part or all of a paid trade (`alipay.trade.refund`), idempotent by `outRequestNo`.
        /// - Returns: the total refunded so far.
        public func refund(outTradeNo: String, amount: Money, outRequestNo: String, reason: String? = nil) async throws -> Money {
            var biz: [String: Any] = ["out_trade_no": outTradeNo, "refund_amount": amount.decimalString, "out_request_no": outRequestNo]
            if let reason { biz["refund_reason"] = reason }
            let node = try await call("alipay.trade.refund", biz: biz)
            return try Money(decimal: node["refund_fee"] as? String ?? "0", currency: .cny)
        }

        /// A completed refund's amount, or `nil` when Alipay has none under the number
        /// (`alipay.trade.fastpay.refund.query`): no `refund_status` of `REFUND_SUCCESS` means, in
        /// Alipay's words, "the refund request was not received, or the refund failed".
        public func refundQuery(outTradeNo: String, outRequestNo: String) async throws -> Money? {
            let node = try await call(
                "alipay.trade.fastpay.refund.query", biz: ["out_trade_no": outTradeNo, "out_request_no": outRequestNo])
            guard node["refund_status"] as? String == "REFUND_SUCCESS" else { return nil }
            return try (node["refund_amount"] as? String).map { try Money(decimal: $0, currency: .cny) }
        }

        /// Where to download a day's bill (`alipay.data.dataservice.bill.downloadurl.query`).
        public func billDownloadURL(date: String, type: String = "trade") async throws -> String {
            let node = try await call("alipay.data.dataservice.bill.downloadurl.query", biz: ["bill_type": type, "bill_date": date])
            return node["bill_download_url"] as? String ?? ""
        }

        /// Downloads and parses a day's trade bill (`date` as `yyyy-MM-dd`): asks for the link, then
        /// fetches it at once (links expire within seconds).
        /// - Throws: `PaymentError` — Alipay's refusal (`isp.bill_not_exist` before the bill is
        ///   ready), `.transport`, or `.malformedMessage` from ``Bill/parse(_:)-(Data)``.
        public func downloadBill(date: String) async throws -> Bill {
            try Bill.parse(try await billFile(date: date, type: "trade"))
        }

        /// ``downloadBill(date:)``'s bill as a reader of its rows, one at a time (a bill of
        /// millions of lines need not be held as rows; its text is).
        /// - Throws: as ``downloadBill(date:)``; a bad row or summary is thrown by the reader.
        public func downloadBillRows(date: String) async throws -> Bill.Reader {
            try Bill.Reader(data: try await billFile(date: date, type: "trade"))
        }

        /// Downloads and parses a day's account statement (账务明细, `bill_type` `signcustomer`):
        /// payments in, refunds and service fees out.
        public func downloadFundFlow(date: String) async throws -> FundFlowBill {
            try FundFlowBill.parse(try await billFile(date: date, type: "signcustomer"))
        }

        /// Asks for a bill's link and fetches it at once (links expire within seconds).
        private func billFile(date: String, type: String) async throws -> Data {
            guard let url = URL(string: try await billDownloadURL(date: date, type: type)), url.scheme?.hasPrefix("http") == true else {
                throw PaymentError(.malformedMessage, provider: .alipay, "bill_download_url is not an http(s) URL")
            }
            let response = try await transport.send(HTTPRequest(method: "GET", url: url))
            guard response.status == 200 else {
                throw PaymentError(.transport, provider: .alipay, "the bill download answered HTTP \(response.status)")
            }
            return response.body
        }

        /// The URL a browser opens for `alipay.trade.wap.pay` or `alipay.trade.page.pay` (GET).
        public func paymentPageURL(
            method: String, outTradeNo: String, total: Money, subject: String, notifyURL: String, returnURL: String,
            extras: TradeExtras = TradeExtras()
        ) throws -> URL {
            let parameters = try pagePaymentParameters(method, outTradeNo, total, subject, notifyURL, returnURL, extras)
            let query = FormBody.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            return URL(string: gateway.absoluteString + "?" + query)!
        }

        /// The same payment as an HTML form that posts itself to the gateway as soon as the page
        /// loads, as the official SDKs' `pageExecute` returns: serve it as the body of a page.
        public func paymentPageForm(
            method: String, outTradeNo: String, total: Money, subject: String, notifyURL: String, returnURL: String,
            extras: TradeExtras = TradeExtras()
        ) throws -> String {
            let parameters = try pagePaymentParameters(method, outTradeNo, total, subject, notifyURL, returnURL, extras)
            let inputs = parameters.sorted { $0.key < $1.key }.map {
                "<input type=\"hidden\" name=\"\(HTMLText.escape($0.key))\" value=\"\(HTMLText.escape($0.value))\">"
            }
            return """
                <form id="alipaysubmit" name="alipaysubmit" action="\(HTMLText.escape(gateway.absoluteString))?charset=utf-8" method="POST">\
                \(inputs.joined())<input type="submit" value="Pay" style="display:none"></form>\
                <script>document.forms['alipaysubmit'].submit();</script>
                """
        }

        private func pagePaymentParameters(
            _ method: String, _ outTradeNo: String, _ total: Money, _ subject: String, _ notifyURL: String, _ returnURL: String,
            _ extras: TradeExtras
        ) throws -> [String: String] {
            guard method == "alipay.trade.wap.pay" || method == "alipay.trade.page.pay" else {
                throw PaymentError(
                    .invalidConfiguration, provider: .alipay,
                    "\(method) is not a page payment: use alipay.trade.wap.pay or alipay.trade.page.pay")
            }
            let product = method == "alipay.trade.wap.pay" ? "QUICK_WAP_WAY" : "FAST_INSTANT_TRADE_PAY"
            return try signedParameters(
                method: method,
                biz: ["out_trade_no": outTradeNo, "total_amount": total.decimalString, "subject": subject, "product_code": product]
                    .merging(extras.biz) { first, _ in first },
                notifyURL: notifyURL, returnURL: returnURL)
        }
    }

    /// A trade, from `alipay.trade.query`.
    public struct Trade: Sendable {
        public let outTradeNo: String
        public let tradeNo: String
        /// `WAIT_BUYER_PAY`, `TRADE_SUCCESS`, `TRADE_FINISHED` or `TRADE_CLOSED`.
        public let tradeStatus: String
        public let totalAmount: Money

        init(_ node: [String: Any]) throws {
            guard let outTradeNo = node["out_trade_no"] as? String, let status = node["trade_status"] as? String,
                let total = node["total_amount"] as? String, let amount = try? Money(decimal: total, currency: .cny)
            else { throw PaymentError(.malformedMessage, provider: .alipay, "alipay.trade.query answered without the trade's fields") }
            self.outTradeNo = outTradeNo
            tradeNo = node["trade_no"] as? String ?? ""
            tradeStatus = status
            totalAmount = amount
        }

        /// `true` when the money arrived.
        public var isPaid: Bool { tradeStatus == "TRADE_SUCCESS" || tradeStatus == "TRADE_FINISHED" }
    }
}

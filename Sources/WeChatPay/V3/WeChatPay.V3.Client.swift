public import Cashier
import CashierArchive
import CashierCrypto
public import Foundation

extension WeChatPay.V3 {
    /// Calls the v3 gateway: signs each request and verifies each response's signature with the
    /// platform key named by `Wechatpay-Serial`. An unknown serial triggers one download of the
    /// platform certificates (`/v3/certificates`, decrypted with the APIv3 key) before giving up
    /// — at most one a minute (``PlatformKeys/claimDownload(at:gap:)``).
    /// Errors mirror v3's `code` and `message`.
    public struct Client: Sendable {
        /// WeChat's production gateway (paths start with `/v3/`).
        public static let productionURL = URL(string: "https://api.mch.weixin.qq.com")!

        public let merchant: Merchant
        /// The platform keys responses are verified with; shared and refreshed in place.
        public let keys: PlatformKeys
        private let transport: any HTTPTransport
        let baseURL: String
        /// How old downloaded platform certificates may get before the next call refreshes them.
        public let certificateRefreshInterval: TimeInterval
        /// Partner mode (服务商): the merchant is a service provider calling for this sub-merchant,
        /// through the partner APIs (`/v3/pay/partner/transactions/…`, `sp_mchid` and `sub_mchid`).
        public var partner: Partner?

        /// A sub-merchant, as partner calls name it.
        public struct Partner: Sendable, Equatable {
            /// `sub_mchid`.
            public let subMchID: String
            /// `sub_appid`, when payments are for the sub-merchant's own app.
            public let subAppID: String?
            public init(subMchID: String, subAppID: String? = nil) {
                self.subMchID = subMchID
                self.subAppID = subAppID
            }
        }

        public init(
            merchant: Merchant, keys: PlatformKeys, transport: any HTTPTransport = URLSessionTransport(), baseURL: URL = productionURL,
            certificateRefreshInterval: TimeInterval = 12 * 3600
        ) {
            self.merchant = merchant
            self.certificateRefreshInterval = certificateRefreshInterval
            self.keys = keys
            self.transport = transport
            self.baseURL = baseURL.trimmedBase
        }

        /// Sends a signed request; returns the verified response body (empty for 204).
        /// - Parameters:
        ///   - method: `GET`, `POST`, …
        ///   - path: the path and query, e.g. `/v3/pay/transactions/id/4200…?mchid=1230000109`.
        ///   - json: the body, when there is one (sent with sorted keys).
        ///   - headers: more headers (`Wechatpay-Serial` when a field is encrypted for a platform key).
        public func send(_ method: String, _ path: String, json: [String: Any]? = nil, headers: HTTPHeaders = [:]) async throws -> Data {
            let body = try json.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) } ?? Data()
            return try await exchange(method, path, body: body, signing: String(decoding: body, as: UTF8.self), headers: headers).body
        }

        /// Sends a request whose signature covers `signed` (the body itself, or a media upload's
        /// `meta` JSON) and returns the answer: a 2xx one verified with the platform key, unless
        /// `verifying` is off (a file download, which WeChat does not sign).
        /// - Throws: `PaymentError.providerRejected` with v3's `code` and `message` for any other status.
        func exchange(
            _ method: String, _ path: String, body: Data, signing signed: String, contentType: String = "application/json",
            verifying: Bool = true, headers extra: HTTPHeaders = [:]
        ) async throws -> HTTPResponse {
            let authorization = try RequestSigner.authorization(method: method, canonicalURL: path, body: signed, merchant: merchant)
            var sent: HTTPHeaders = ["Authorization": authorization, "Accept": "application/json", "Content-Type": contentType]
            for (name, value) in extra { sent.add(name, value) }
            let request = HTTPRequest(method: method, url: URL(string: baseURL + path)!, headers: sent, body: body)
            let response = try await transport.send(request)
            guard (200..<300).contains(response.status) else {
                let problem = try? JSONDecoder().decode(Problem.self, from: response.body)
                throw PaymentError(
                    .providerRejected, provider: .wechatV3, "\(method) \(path.split(separator: "?")[0]) answered HTTP \(response.status)",
                    providerCode: problem?.code, providerMessage: problem?.message)
            }
            guard verifying else { return response }
            let headers = try SignatureHeaders(headers: response.headers)
            if keys.needsRefresh(olderThan: certificateRefreshInterval) {
                // Periodic refresh picks up rotated certificates before the old ones expire; a failed
                // refresh keeps the current keys.
                _ = try? await downloadCertificates()
            }
            do {
                try headers.verify(body: Array(response.body), keys: keys)
            } catch let error as PaymentError where error.code == .unknownKey && !path.hasPrefix("/v3/certificates") {
                guard keys.claimDownload() else { throw error }
                _ = try await downloadCertificates()
                try headers.verify(body: Array(response.body), keys: keys)
            }
            return response
        }

        private struct Problem: Decodable {
            let code: String
            let message: String
        }

        /// Downloads, decrypts and installs the platform certificates.
        /// - Returns: their serial numbers.
        @discardableResult
        public func downloadCertificates() async throws -> [String] {
            let authorization = try RequestSigner.authorization(
                method: "GET", canonicalURL: "/v3/certificates", body: "", merchant: merchant)
            let response = try await transport.send(
                HTTPRequest(
                    method: "GET", url: URL(string: baseURL + "/v3/certificates")!,
                    headers: ["Authorization": authorization, "Accept": "application/json"]))
            guard response.status == 200 else {
                throw PaymentError(.providerRejected, provider: .wechatV3, "/v3/certificates answered HTTP \(response.status)")
            }
            struct Listing: Decodable {
                struct Entry: Decodable {
                    let serial_no: String
                    let encrypt_certificate: EncryptedResource
                }
                let data: [Entry]
            }
            let listing: Listing
            do {
                listing = try JSONDecoder().decode(Listing.self, from: response.body)
            } catch {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV3, "/v3/certificates answered something other than a certificate list")
            }
            var serials: [String] = []
            for entry in listing.data {
                // AES-GCM under the APIv3 key authenticates each certificate as WeChat's.
                let pem = String(decoding: try entry.encrypt_certificate.decrypt(apiV3Key: merchant.apiV3Key), as: UTF8.self)
                let certificate: X509Certificate
                do {
                    certificate = try X509Certificate(pemRepresentation: pem)
                } catch {
                    throw PaymentError(.malformedMessage, provider: .wechatV3, "a platform certificate does not parse")
                }
                guard certificate.serialNumberHex.caseInsensitiveCompare(entry.serial_no) == .orderedSame else {
                    throw PaymentError(.malformedMessage, provider: .wechatV3, "a platform certificate's serial does not match its listing")
                }
                try keys.add(certificate: certificate)
                serials.append(certificate.serialNumberHex)
            }
            // The listing itself must be signed by one of the certificates it delivered.
            try SignatureHeaders(headers: response.headers).verify(body: Array(response.body), keys: keys)
            keys.markRefreshed()
            return serials
        }

        // MARK: Payments

        /// The four v3 prepay endpoints.
        public enum PrepayKind: String, Sendable {
            case app, jsapi, native, h5
        }

        /// What a prepay call answered: `prepay_id` (APP, JSAPI), `code_url` (Native) or `h5_url` (H5).
        public struct Prepay: Sendable {
            public let prepayID: String?
            public let codeURL: String?
            public let h5URL: String?
        }

        /// Places an order. With `profitSharing`, it is paid with `settle_info.profit_sharing`: the
        /// money stays frozen for profit sharing (``createProfitSharingOrder(_:)``) until unfrozen.
        public func prepay(
            _ kind: PrepayKind, appID: String, description: String, outTradeNo: String, total: Money, notifyURL: String,
            openID: String? = nil, clientIP: String? = nil, attach: String? = nil, goods: [GoodsLine] = [], expiresAt: Date? = nil,
            profitSharing: Bool = false
        ) async throws -> Prepay {
            var body: [String: Any] = [
                "description": description, "out_trade_no": outTradeNo, "notify_url": notifyURL,
                "amount": ["total": total.minorUnits, "currency": total.currency.code],
            ]
            if let partner {
                body["sp_appid"] = appID
                body["sp_mchid"] = merchant.mchID
                body["sub_mchid"] = partner.subMchID
                if let subAppID = partner.subAppID { body["sub_appid"] = subAppID }
                // An openid is the payer's under the sub-merchant's app when it has one, else the service provider's.
                if let openID { body["payer"] = [partner.subAppID == nil ? "sp_openid" : "sub_openid": openID] }
            } else {
                body["appid"] = appID
                body["mchid"] = merchant.mchID
                if let openID { body["payer"] = ["openid": openID] }
            }
            if let attach { body["attach"] = attach }
            if kind == .h5 {
                body["scene_info"] = ["payer_client_ip": clientIP ?? "127.0.0.1", "h5_info": ["type": "Wap"]]
            } else if let clientIP {
                body["scene_info"] = ["payer_client_ip": clientIP]
            }
            if !goods.isEmpty {
                body["detail"] = [
                    "goods_detail": goods.map { line -> [String: Any] in
                        [
                            "merchant_goods_id": line.id, "goods_name": line.name, "quantity": line.quantity,
                            "unit_price": line.unitPrice.minorUnits,
                        ]
                    }
                ]
            }
            if let expiresAt { body["time_expire"] = BeijingTime.string(from: expiresAt, .rfc3339) }
            if profitSharing { body["settle_info"] = ["profit_sharing": true] }
            let answer = try JSONDecoder().decode(
                [String: String].self, from: try await send("POST", "\(transactionsPath)/\(kind.rawValue)", json: body))
            return Prepay(prepayID: answer["prepay_id"], codeURL: answer["code_url"], h5URL: answer["h5_url"])
        }

        /// `/v3/pay/transactions`, or `/v3/pay/partner/transactions` in partner mode.
        private var transactionsPath: String { partner == nil ? "/v3/pay/transactions" : "/v3/pay/partner/transactions" }

        /// `mchid=…`, or `sp_mchid=…&sub_mchid=…` in partner mode.
        private var merchantQuery: String {
            partner.map { "sp_mchid=\(merchant.mchID)&sub_mchid=\($0.subMchID)" } ?? "mchid=\(merchant.mchID)"
        }

        /// Where an order stands, by the merchant's trade number.
        /// - Throws: `malformedMessage` for an answer about another trade.
        public func transaction(outTradeNo: String) async throws -> Transaction {
            let transaction = try Transaction.decode(
                try await send("GET", "\(transactionsPath)/out-trade-no/\(outTradeNo)?\(merchantQuery)"))
            guard transaction.outTradeNo == outTradeNo else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV3, "the query answered about \(transaction.outTradeNo), not \(outTradeNo)")
            }
            return transaction
        }

        /// Where an order stands, by WeChat's transaction id.
        public func transaction(transactionID: String) async throws -> Transaction {
            try Transaction.decode(try await send("GET", "\(transactionsPath)/id/\(transactionID)?\(merchantQuery)"))
        }

        /// Closes an unpaid order.
        public func close(outTradeNo: String) async throws {
            let body: [String: Any] = partner.map { ["sp_mchid": merchant.mchID, "sub_mchid": $0.subMchID] } ?? ["mchid": merchant.mchID]
            _ = try await send("POST", "\(transactionsPath)/out-trade-no/\(outTradeNo)/close", json: body)
        }

        /// Refunds part or all of a paid order. - Returns: WeChat's refund id.
        public func refund(
            outTradeNo: String, outRefundNo: String, total: Money, refund: Money, reason: String? = nil, notifyURL: String? = nil
        ) async throws -> String {
            var body: [String: Any] = [
                "out_trade_no": outTradeNo, "out_refund_no": outRefundNo,
                "amount": ["refund": refund.minorUnits, "total": total.minorUnits, "currency": total.currency.code],
            ]
            if let reason { body["reason"] = reason }
            if let notifyURL { body["notify_url"] = notifyURL }
            if let partner { body["sub_mchid"] = partner.subMchID }
            let answer =
                try JSONSerialization.jsonObject(with: try await send("POST", "/v3/refund/domestic/refunds", json: body)) as? [String: Any]
            return answer?["refund_id"] as? String ?? ""
        }

        /// Downloads the trade bill of a day (gzipped, as WeChat offers) and checks it against the
        /// hash in the signed listing.
        /// - Parameters:
        ///   - date: `yyyy-MM-dd`, Beijing time.
        ///   - type: `ALL`, `SUCCESS` or `REFUND`.
        public func tradeBill(date: String, type: String = "ALL") async throws -> WeChatPay.Bill {
            let text = try await billText("/v3/bill/tradebill?bill_date=\(date)&bill_type=\(type)&tar_type=GZIP")
            return try WeChatPay.Bill(parsing: text)
        }

        /// ``tradeBill(date:type:)``'s bill as a reader of its rows, one at a time, inflated as
        /// they are read: a bill of millions of lines is held as its compressed file alone.
        public func tradeBillRows(date: String, type: String = "ALL") async throws -> WeChatPay.Bill.Reader {
            try WeChatPay.Bill.Reader(file: try await billFile("/v3/bill/tradebill?bill_date=\(date)&bill_type=\(type)&tar_type=GZIP"))
        }

        /// Downloads the fund-flow bill (资金账单) of a day for an account (`BASIC`, `OPERATION`, `FEES`).
        public func fundFlowBill(date: String, account: String = "BASIC") async throws -> WeChatPay.FundFlowBill {
            let text = try await billText("/v3/bill/fundflowbill?bill_date=\(date)&account_type=\(account)&tar_type=GZIP")
            return try WeChatPay.FundFlowBill(parsing: text)
        }

        /// ``billFile(_:)``'s file, inflated when it is gzipped.
        func billText(_ listingPath: String) async throws -> String {
            let file = try await billFile(listingPath)
            guard Gzip.isGzip(file) else { return String(decoding: file, as: UTF8.self) }
            do {
                return String(decoding: try Gzip.decompress(file), as: UTF8.self)
            } catch let error as ArchiveError {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the gzipped bill does not inflate: \(error.message)")
            }
        }

        /// Asks for a bill's signed listing, fetches the file from the gateway and checks its SHA1
        /// against the listing (over the bytes as served, gzipped or not).
        func billFile(_ listingPath: String) async throws -> Data {
            struct Listing: Decodable {
                let hash_type: String
                let hash_value: String
                let download_url: String
            }
            let endpoint = String(listingPath.split(separator: "?")[0])
            let listing: Listing
            do {
                listing = try JSONDecoder().decode(Listing.self, from: try await send("GET", listingPath))
            } catch let error as PaymentError {
                throw error
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "\(endpoint) answered something other than a bill listing")
            }
            // Only ever fetch from the gateway itself, whatever the listing says.
            guard listing.download_url.hasPrefix(baseURL + "/v3/billdownload/") else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the bill download_url is not on the gateway")
            }
            let path = String(listing.download_url.dropFirst(baseURL.count))
            let authorization = try RequestSigner.authorization(method: "GET", canonicalURL: path, body: "", merchant: merchant)
            let response = try await transport.send(
                HTTPRequest(
                    method: "GET", url: URL(string: listing.download_url)!, headers: ["Authorization": authorization], timeout: .seconds(60)
                ))
            guard response.status == 200 else {
                throw PaymentError(.providerRejected, provider: .wechatV3, "the bill download answered HTTP \(response.status)")
            }
            guard listing.hash_type == "SHA1",
                ConstantTime.equals(Hex.encode(DigestAlgorithm.insecureSHA1.hash(response.body)), listing.hash_value.lowercased())
            else {
                throw PaymentError(.signatureMismatch, provider: .wechatV3, "the bill file does not match the hash in the signed listing")
            }
            return response.body
        }

        /// A refund's status (`SUCCESS`, `PROCESSING`, `CLOSED`, `ABNORMAL`).
        public func refundStatus(outRefundNo: String) async throws -> String {
            let answer =
                try JSONSerialization.jsonObject(
                    with: try await send(
                        "GET", "/v3/refund/domestic/refunds/\(outRefundNo)" + (partner.map { "?sub_mchid=\($0.subMchID)" } ?? "")))
                as? [String: Any]
            return answer?["status"] as? String ?? ""
        }
    }

    /// A v3 transaction (query answer, or a `TRANSACTION.SUCCESS` notification's resource).
    public struct Transaction: Sendable {
        public let outTradeNo: String
        public let transactionID: String?
        /// `SUCCESS`, `REFUND`, `NOTPAY`, `CLOSED`, `REVOKED`, `USERPAYING`, `PAYERROR`.
        public let tradeState: String
        public let amount: Money
        /// `appid`, or `sp_appid` for a partner transaction.
        public let appID: String
        /// `mchid`, or `sp_mchid` for a partner transaction.
        public let mchID: String
        /// A partner transaction's `sub_mchid`.
        public var subMchID: String? = nil
        /// A partner transaction's `sub_appid`.
        public var subAppID: String? = nil

        private struct Wire: Decodable {
            struct Amount: Decodable {
                let total: Int64
                let currency: String?
            }
            let out_trade_no: String
            let transaction_id: String?
            let trade_state: String
            let amount: Amount
            let appid: String?
            let mchid: String?
            let sp_appid: String?
            let sp_mchid: String?
            let sub_appid: String?
            let sub_mchid: String?
        }

        /// Decodes a transaction JSON document.
        public static func decode(_ data: some Collection<UInt8>) throws -> Transaction {
            do {
                let wire = try JSONDecoder().decode(Wire.self, from: Data(data))
                guard let appID = wire.appid ?? wire.sp_appid, let mchID = wire.mchid ?? wire.sp_mchid else {
                    throw PaymentError(.malformedMessage, provider: .wechatV3, "the transaction names no merchant")
                }
                return Transaction(
                    outTradeNo: wire.out_trade_no, transactionID: wire.transaction_id, tradeState: wire.trade_state,
                    amount: Money(minorUnits: wire.amount.total, currency: try Currency(code: wire.amount.currency ?? "CNY")),
                    appID: appID, mchID: mchID, subMchID: wire.sub_mchid, subAppID: wire.sub_appid)
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "not a v3 transaction document")
            }
        }

        /// `true` when the money arrived.
        public var isPaid: Bool { tradeState == "SUCCESS" || tradeState == "REFUND" }
    }
}

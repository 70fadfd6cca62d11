import Cashier
public import CashierCrypto
public import CashierHTTP
import Foundation
import UnionPay

/// An offline, stateful simulator of UnionPay's online gateway (全渠道), answering as UnionPay's do.
///
/// Under a base URL, `/gateway/api/appTransReq.do` (the app consume: a `tn`),
/// `/gateway/api/backTransReq.do` (undo `31`, refund `04`) and `/gateway/api/queryTrans.do` take
/// form posts signed with a merchant's certificate (5.1.0 or 5.0.0) and answer in the raw
/// `k=v&…` format, signed with the sandbox's gateway certificate and carrying it as
/// `signPubKeyCert` (5.1.0). A payer pays a `tn` (the payer page or `POST /sandbox/pay`);
/// successful consumes, undos and refunds are notified to the `backUrl`, signed, until it answers
/// HTTP 200. Undos and refunds are accepted first and settle a moment later. The reconciliation
/// file (`txnType=76`) is served by a listener of its own, as UnionPay serves it from another host.
///
/// Codes: `00`; `10` 报文格式错误; `11` 验证签名失败; `12` 重复交易; `34` 查无此交易 (also for a
/// consume not paid yet); `35` 原交易不存在或状态不正确; `36` 与原交易信息不符; `98` 文件不存在.
public actor UnionPaySandbox {
    /// The sandbox's retry intervals after the first attempt. UnionPay's own schedule is not
    /// published (the spec says only that it sends again): these are the sandbox's choice.
    public static let schedule: [Duration] = [15, 60, 120, 300, 600, 1800, 3600, 7200].map { .seconds($0) }

    public nonisolated let ca: UnionPayTestCA
    let delivery: NotificationDelivery
    let address: SandboxAddress
    /// How long an accepted undo or refund stays "in process" (`origRespCode` `05`).
    let settleDelay: Duration
    /// Merchant signing certificates by `merId`, then by `certId`.
    private var merchants: [String: [String: X509Certificate]] = [:]
    /// 5.0.0 answers are signed with the same key; clients find it by this `certId`.
    public nonisolated var gatewayCertID: String { ca.gatewayCertificate.serialNumberDecimal }

    enum Kind: String, Sendable {
        case consume = "01"
        case refund = "04"
        case undo = "31"
    }

    enum State: Sendable, Equatable {
        /// A consume with a `tn`, not paid.
        case awaitingPayment
        /// An undo or refund accepted, not settled.
        case processing
        case succeeded
        case failed(code: String, message: String)
    }

    struct Transaction: Sendable {
        let kind: Kind
        let merchantID: String
        let orderID: String
        let transactionTime: String
        let amount: Int64
        let backURL: String
        let version: UnionPay.Version
        var reserved: String?
        var tn: String?
        var queryID: String
        var originalQueryID: String?
        var state: State
        var traceNo = ""
        var traceTime = ""
        var settleDate: String?
        /// The Beijing day it succeeded on (`yyyyMMdd`): the reconciliation file it goes in.
        var settledDay: String?
        let created = Date()
        var sent: [String: String] = [:]
    }

    /// Transactions by `merId|orderId|txnTime`.
    var transactions: [String: Transaction] = [:]
    /// `tn` → transaction key.
    var tns: [String: String] = [:]
    /// `queryId` → transaction key.
    var byQueryID: [String: String] = [:]
    private var refundOutcome = SandboxRefundOutcome.succeed

    public init(
        ca: UnionPayTestCA = .shared, delivery: NotificationDelivery, address: SandboxAddress, settleDelay: Duration = .milliseconds(300)
    ) {
        self.ca = ca
        self.delivery = delivery
        self.address = address
        self.settleDelay = settleDelay
        merchants[ca.merchantID] = [ca.merchantCertificate.serialNumberDecimal: ca.merchantCertificate]
    }

    /// Tells the sandbox a merchant's signing certificate (as UnionPay knows each merchant's).
    public func register(merchantID: String, certificate: X509Certificate) {
        merchants[merchantID, default: [:]][certificate.serialNumberDecimal] = certificate
    }

    public func setRefundOutcome(_ outcome: SandboxRefundOutcome) {
        refundOutcome = outcome
    }

    static func key(_ merchantID: String, _ orderID: String, _ time: String) -> String { "\(merchantID)|\(orderID)|\(time)" }

    // MARK: Routes

    /// Routes the gateway under `prefix` (e.g. `/unionpay`) and the payer page under `prefix/pay`.
    public nonisolated func register(on router: inout Router, prefix: String) {
        router.add("POST", prefix + "/gateway/api/appTransReq.do") { request, _ in await self.answer(request, .consume) }
        router.add("POST", prefix + "/gateway/api/backTransReq.do") { request, _ in await self.answer(request, .reverse) }
        router.add("POST", prefix + "/gateway/api/queryTrans.do") { request, _ in await self.answer(request, .query) }
        router.add("GET", prefix + "/pay") { request, _ in
            await self.payerPage(tn: request.queryValue("tn") ?? "", action: prefix + "/pay", returnURL: request.queryValue("return_url"))
        }
        router.add("POST", prefix + "/pay") { request, _ in await self.payerAction((try? UnionPay.FormBody.parse(request.body)) ?? [:]) }
    }

    /// A request refused with a code, answered signed like any other.
    struct Refusal: Error {
        let code: String
        let message: String
    }

    /// The gateway's services.
    enum Service {
        case consume, reverse, query, fileDownload
    }

    /// Verifies the merchant's signature, runs the service, and answers its fields signed.
    func answer(_ request: HTTPServerRequest, _ service: Service) -> HTTPServerResponse {
        guard let fields = try? UnionPay.FormBody.parse(request.body), !fields.isEmpty else {
            return .text("respCode=10&respMsg=报文格式错误[1000010]", contentType: "text/plain;charset=UTF-8")
        }
        let version = UnionPay.Version(rawValue: fields["version"] ?? "") ?? .v5_1_0
        var echo = fields.filter { Self.echoed.contains($0.key) }
        do {
            try checkSignature(fields)
            let answer =
                switch service {
                case .consume: try consume(fields)
                case .reverse: try reverse(fields)
                case .query: try query(fields)
                case .fileDownload: try fileDownload(fields)
                }
            echo.merge(answer) { $1 }
        } catch let refusal as Refusal {
            echo["respCode"] = refusal.code
            echo["respMsg"] = refusal.message
        } catch {
            echo["respCode"] = "10"
            echo["respMsg"] = "报文格式错误[1000010]"
        }
        return .text(UnionPay.ResponseBody.encode(signed(echo, version: version)), contentType: "text/plain;charset=UTF-8")
    }

    /// The request fields UnionPay's answers repeat.
    static let echoed: Set<String> = [
        "encoding", "bizType", "txnType", "txnSubType", "accessType", "merId", "orderId", "txnTime", "txnAmt", "currencyCode",
        "reqReserved", "origQryId", "settleDate", "fileType",
    ]

    func checkSignature(_ fields: [String: String]) throws {
        guard fields["signMethod"] == "01", let version = UnionPay.Version(rawValue: fields["version"] ?? "") else {
            throw Refusal(code: "10", message: "报文格式错误[1000010]: version 5.1.0 or 5.0.0, signMethod 01")
        }
        guard let merchantID = fields["merId"], let certificates = merchants[merchantID] else {
            throw Refusal(code: "10", message: "商户号不存在[1000011]")
        }
        guard let certificate = fields["certId"].flatMap({ certificates[$0] }), let key = try? RSAPublicKey(certificate: certificate),
            let signature = fields["signature"],
            UnionPay.Signer.isValidSignature(signature, for: fields.filter { !$0.value.isEmpty }, publicKey: key, version: version)
        else { throw Refusal(code: "11", message: "验证签名失败[9100004]Signature verification failed") }
    }

    /// `fields` with `signMethod`, `version`, `certId`, `signPubKeyCert` (5.1.0) and `signature`.
    func signed(_ fields: [String: String], version: UnionPay.Version) -> [String: String] {
        var signed = fields
        signed["version"] = version.rawValue
        signed["signMethod"] = "01"
        signed["certId"] = gatewayCertID
        if version == .v5_1_0 { signed["signPubKeyCert"] = UnionPayTestCA.crlfPEM(ca.gatewayCertificate) }
        signed["signature"] = try? UnionPay.Signer.signature(for: signed, privateKey: ca.gatewayKey, version: version)
        return signed
    }

    // MARK: Checks

    static func require(_ fields: [String: String], _ name: String, _ allowed: Set<String>? = nil) throws -> String {
        guard let value = fields[name], !value.isEmpty else { throw Refusal(code: "10", message: "报文格式错误[1000010]: \(name) 为空") }
        if let allowed, !allowed.contains(value) { throw Refusal(code: "10", message: "报文格式错误[1000010]: \(name)=\(value)") }
        return value
    }

    static func amount(_ fields: [String: String]) throws -> Int64 {
        guard let amount = UnionPay.Identifiers.amount(fields["txnAmt"]), amount.isPositive,
            fields["txnAmt"]?.hasPrefix("0") == false
        else { throw Refusal(code: "10", message: "报文格式错误[1000010]: txnAmt") }
        guard fields["currencyCode"] == UnionPay.currencyCodeCNY else {
            throw Refusal(code: "10", message: "报文格式错误[1000010]: currencyCode")
        }
        return amount.minorUnits
    }

    static func identifiers(_ fields: [String: String]) throws -> (orderID: String, time: String) {
        let orderID = try require(fields, "orderId")
        let time = try require(fields, "txnTime")
        guard (try? UnionPay.Identifiers.checkOrderID(orderID)) != nil, (try? UnionPay.Identifiers.checkTransactionTime(time)) != nil else {
            throw Refusal(code: "10", message: "报文格式错误[1000010]: orderId or txnTime")
        }
        return (orderID, time)
    }

    static func backURL(_ fields: [String: String]) throws -> String {
        let text = try require(fields, "backUrl")
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw Refusal(code: "10", message: "报文格式错误[1000010]: backUrl")
        }
        return text
    }

    static func digits(_ count: Int) -> String { SecureRandom.string(count: count, alphabet: "0123456789") }

    // MARK: Consume, undo, refund, query

    func consume(_ fields: [String: String]) throws -> [String: String] {
        _ = try Self.require(fields, "txnType", ["01"])
        _ = try Self.require(fields, "txnSubType", ["01"])
        _ = try Self.require(fields, "bizType", ["000201"])
        _ = try Self.require(fields, "channelType", ["07", "08"])
        _ = try Self.require(fields, "accessType", ["0"])
        let merchantID = try Self.require(fields, "merId")
        let (orderID, time) = try Self.identifiers(fields)
        let amount = try Self.amount(fields)
        let backURL = try Self.backURL(fields)
        let key = Self.key(merchantID, orderID, time)
        guard transactions[key] == nil else { throw Refusal(code: "12", message: "重复交易[2000012]") }
        let tn = Self.digits(21)
        var sent: [String: String] = [:]
        for name in ["payTimeout", "orderDesc", "frontUrl", "channelType", "reqReserved"] {
            if let value = fields[name] { sent[name] = value }
        }
        transactions[key] = Transaction(
            kind: .consume, merchantID: merchantID, orderID: orderID, transactionTime: time, amount: amount, backURL: backURL,
            version: UnionPay.Version(rawValue: fields["version"] ?? "") ?? .v5_1_0, reserved: fields["reqReserved"], tn: tn, queryID: "",
            state: .awaitingPayment, sent: sent)
        tns[tn] = key
        return ["respCode": "00", "respMsg": "成功[0000000]", "tn": tn]
    }

    func reverse(_ fields: [String: String]) throws -> [String: String] {
        guard let kind = Kind(rawValue: try Self.require(fields, "txnType", ["04", "31"])) else { return [:] }
        _ = try Self.require(fields, "txnSubType", ["00"])
        _ = try Self.require(fields, "bizType", ["000201", "000000"])
        let merchantID = try Self.require(fields, "merId")
        let (orderID, time) = try Self.identifiers(fields)
        let amount = try Self.amount(fields)
        let backURL = try Self.backURL(fields)
        let original = try Self.require(fields, "origQryId")
        let key = Self.key(merchantID, orderID, time)
        guard transactions[key] == nil else { throw Refusal(code: "12", message: "重复交易[2000012]") }
        guard let consumeKey = byQueryID[original], let consume = transactions[consumeKey], consume.kind == .consume,
            consume.merchantID == merchantID, consume.state == .succeeded
        else { throw Refusal(code: "35", message: "原交易不存在或状态不正确[2011000]") }
        let reversals = transactions.values.filter { $0.originalQueryID == original && $0.kind != .consume }
        let live = reversals.filter { $0.state == .succeeded || $0.state == .processing }
        if live.contains(where: { $0.kind == .undo }) { throw Refusal(code: "35", message: "原交易已撤销[2011001]") }
        let taken = live.reduce(Int64(0)) { $0 + $1.amount }
        switch kind {
        case .undo:
            guard live.isEmpty else { throw Refusal(code: "35", message: "原交易已退货，不能撤销[2011002]") }
            guard amount == consume.amount else { throw Refusal(code: "36", message: "撤销金额与原交易不符[2011003]") }
            guard consume.settledDay == String(BeijingTime.string(from: Date(), .compact).prefix(8)) else {
                throw Refusal(code: "35", message: "原交易已清算，不能撤销，请退货[2011004]")
            }
        case .refund, .consume:
            guard taken + amount <= consume.amount else { throw Refusal(code: "36", message: "退货金额超限[2011005]") }
        }
        if refundOutcome == .refuse { throw Refusal(code: "01", message: "交易失败[1000001]商户可用余额不足") }
        let queryID = Self.digits(21)
        transactions[key] = Transaction(
            kind: kind, merchantID: merchantID, orderID: orderID, transactionTime: time, amount: amount, backURL: backURL,
            version: UnionPay.Version(rawValue: fields["version"] ?? "") ?? .v5_1_0, reserved: fields["reqReserved"], queryID: queryID,
            originalQueryID: original, state: .processing)
        byQueryID[queryID] = key
        let failLater = refundOutcome != .succeed
        let delay = settleDelay
        Task {
            try? await Task.sleep(for: delay)
            self.settle(key, failed: failLater)
        }
        return ["respCode": "00", "respMsg": "成功[0000000]", "queryId": queryID]
    }

    /// An accepted undo or refund settles: succeeded (and notified) or failed (not notified:
    /// UnionPay notifies successes only).
    func settle(_ key: String, failed: Bool) {
        guard var transaction = transactions[key], transaction.state == .processing else { return }
        if failed {
            transaction.state = .failed(code: "01", message: "交易失败[1000001]")
            transactions[key] = transaction
            return
        }
        complete(&transaction)
        transactions[key] = transaction
        notify(transaction)
    }

    /// Marks a transaction succeeded now, with its trace number and settlement day.
    func complete(_ transaction: inout Transaction) {
        let now = BeijingTime.string(from: Date(), .compact)
        transaction.state = .succeeded
        transaction.traceNo = Self.digits(6)
        transaction.traceTime = String(now.dropFirst(4))  // MMDDhhmmss
        transaction.settleDate = String(now.dropFirst(4).prefix(4))
        transaction.settledDay = String(now.prefix(8))
    }

    func query(_ fields: [String: String]) throws -> [String: String] {
        _ = try Self.require(fields, "txnType", ["00"])
        let merchantID = try Self.require(fields, "merId")
        let (orderID, time) = try Self.identifiers(fields)
        guard let transaction = transactions[Self.key(merchantID, orderID, time)], transaction.state != .awaitingPayment else {
            throw Refusal(code: "34", message: "查无此交易[2600000]")
        }
        var answer = ["respCode": "00", "respMsg": "成功[0000000]"].merging(details(transaction)) { $1 }
        switch transaction.state {
        case .succeeded: (answer["origRespCode"], answer["origRespMsg"]) = ("00", "成功[0000000]")
        case .processing, .awaitingPayment: (answer["origRespCode"], answer["origRespMsg"]) = ("05", "交易已受理，请稍后查询交易结果[0000005]")
        case .failed(let code, let message): (answer["origRespCode"], answer["origRespMsg"]) = (code, message)
        }
        return answer
    }

    /// What answers and notifications say of a transaction.
    func details(_ transaction: Transaction) -> [String: String] {
        var fields = [
            "txnType": transaction.kind.rawValue, "txnSubType": transaction.kind == .consume ? "01" : "00", "bizType": "000201",
            "txnAmt": String(transaction.amount), "currencyCode": UnionPay.currencyCodeCNY, "queryId": transaction.queryID,
        ]
        if transaction.state == .succeeded {
            fields["traceNo"] = transaction.traceNo
            fields["traceTime"] = transaction.traceTime
            fields["settleDate"] = transaction.settleDate
            fields["settleAmt"] = String(transaction.amount)
            fields["settleCurrencyCode"] = UnionPay.currencyCodeCNY
        }
        if let original = transaction.originalQueryID { fields["origQryId"] = original }
        if let reserved = transaction.reserved { fields["reqReserved"] = reserved }
        if transaction.queryID.isEmpty { fields["queryId"] = nil }
        return fields
    }

    /// Posts the back notification of a transaction that succeeded.
    func notify(_ transaction: Transaction) {
        var fields = details(transaction).merging([
            "accessType": "0", "encoding": "UTF-8", "merId": transaction.merchantID, "orderId": transaction.orderID,
            "txnTime": transaction.transactionTime, "respCode": "00", "respMsg": "成功[0000000]",
        ]) { $1 }
        if transaction.kind == .consume { fields["payCardType"] = "01" }
        let body = UnionPay.FormBody.encode(signed(fields, version: transaction.version))
        delivery.deliver(
            key: transaction.orderID, url: transaction.backURL, body: Data(body.utf8),
            contentType: "application/x-www-form-urlencoded;charset=UTF-8", schedule: Self.schedule
        ) { response in response.status == 200 }
    }
}

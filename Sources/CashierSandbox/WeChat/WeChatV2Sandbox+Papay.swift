import Cashier
import CashierCrypto
public import Foundation
import WeChatPay

/// Withholding (委托代扣, `papay`) at the v2 gateway.
///
/// - `papay/preentrustweb` (the app's pre-signing) remembers the signing request and answers a
///   `pre_entrustweb_id`; the `entrustweb` (MD5) and `h5entrustweb` (HMAC-SHA256) addresses are
///   verified and remembered when they are opened (``WeChatV2Sandbox`` `+PapayPayer`). The payer
///   then agrees or refuses; agreeing makes a contract and sends `change_type` `ADD` to the
///   request's `notify_url`.
/// - `papay/querycontract` answers a contract by `contract_id`, `plan_id` + `contract_code` or
///   `plan_id` + `openid` (`CONTRACT_NOT_EXIST` when there is none); `papay/deletecontract`
///   ends it (`contract_termination_mode` 3) and sends `DELETE`.
/// - `pay/pappayapply` accepts a deduction under a signed contract (`CONTRACT_NOT_EXIST` when it
///   is not signed or has ended; the same `out_trade_no` with the same content answers the same,
///   with other content `OUT_TRADE_NO_USED`). It is `ACCEPT` until ``setDeductionDelay(_:)`` has
///   passed on the sandbox clock (``setPapayClock(_:)``), then `SUCCESS`, or `PAY_FAIL` when the
///   payer's balance was made short (``setInsufficientBalance(contractID:deductions:)``), and the
///   ordinary payment notification (`trade_type` `PAP`; `result_code` FAIL, `NOTENOUGH`, for a
///   failure) goes to its `notify_url` on WeChat's retry schedule. Every gateway call settles
///   what is due first (and ends contracts past their three years: mode 1, `DELETE`);
///   ``settleDeductions()`` settles on demand.
/// - `pay/paporderquery` answers as `pay/orderquery` does, with `contract_id`.
extension WeChatV2Sandbox {
    static let papayEndpoints = [
        "papay/preentrustweb", "papay/querycontract", "papay/deletecontract", "pay/pappayapply", "pay/paporderquery",
    ]

    /// Sets the clock contracts and deductions are timed by (the real one unless set).
    public func setPapayClock(_ clock: @escaping @Sendable () -> Date) {
        papay.clock = clock
    }

    /// Sets how long after acceptance (on the sandbox clock) deductions settle (5 seconds unless set).
    public func setDeductionDelay(_ seconds: TimeInterval) {
        papay.deductionDelay = seconds
    }

    /// Makes the payer's next `deductions` deductions under `contractID` fail for want of balance
    /// (`PAY_FAIL`, `NOTENOUGH`); 0 restores the balance.
    /// - Returns: `false` when there is no such contract.
    @discardableResult
    public func setInsufficientBalance(contractID: String, deductions: Int = 1) -> Bool {
        guard papay.contracts[contractID] != nil else { return false }
        papay.contracts[contractID]?.failingDeductions = max(0, deductions)
        return true
    }

    /// Every contract, as the payer API shows them.
    public func contracts() -> [SandboxContract] {
        papay.contracts.values.sorted { $0.signedAt < $1.signedAt }.map(Self.view)
    }

    static func view(_ contract: WeChatContractDesk.Contract) -> SandboxContract {
        SandboxContract(
            mch_id: contract.signing.mchID, appid: contract.signing.appID, plan_id: contract.signing.planID,
            contract_code: contract.signing.contractCode, contract_id: contract.contractID, openid: contract.openID,
            contract_state: contract.state, contract_termination_mode: contract.terminationMode,
            contract_display_account: contract.signing.displayAccount)
    }

    /// What the sandbox clock has made due: contracts past their validity end (`contract_termination_mode`
    /// 1, with `DELETE`), then deductions settle. - Returns: how many deductions settled.
    @discardableResult
    func sweepPapay() -> Int {
        let now = papay.clock()
        for contract in papay.contracts.values where contract.terminatedAt == nil && contract.expiresAt <= now {
            terminate(contract.contractID, mode: "1", remark: nil)
        }
        return settleDeductions()
    }

    /// Settles every accepted deduction that is due on the sandbox clock and notifies it.
    /// - Returns: how many settled.
    @discardableResult
    public func settleDeductions() -> Int {
        let now = papay.clock()
        let due = papay.deductions.filter { $0.value.settlesAt <= now }
        for (outTradeNo, deduction) in due.sorted(by: { $0.value.settlesAt < $1.value.settlesAt }) {
            papay.deductions[outTradeNo] = nil
            guard var order = orders[outTradeNo], order.state == "ACCEPT" else { continue }
            order.timeEnd = BeijingTime.string(from: now, .compact)
            if deduction.fails {
                order.state = "PAY_FAIL"
                orders[outTradeNo] = order
                notify(outTradeNo, order, failure: BusinessError("NOTENOUGH", "余额不足"))
            } else {
                order.state = "SUCCESS"
                order.transactionID = "42000" + Self.timestamp() + SecureRandom.string(count: 9, alphabet: "0123456789")
                orders[outTradeNo] = order
                notify(outTradeNo, order)
            }
        }
        return due.count
    }

    func papay(
        _ endpoint: String, _ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant, signType: WeChatPay.V2.SignType
    ) -> Result<[(String, String)], BusinessError> {
        switch endpoint {
        case "papay/preentrustweb":
            return remember(request, merchant: merchant, signType: signType).map { _ in
                [("pre_entrustweb_id", SecureRandom.string(count: 32, alphabet: "0123456789abcdef"))]
            }
        case "papay/querycontract":
            guard let contract = contract(named: request, mchID: merchant.mchID) else { return .failure(Self.noContract) }
            return .success(Self.contractFields(contract))
        case "papay/deletecontract":
            guard let contract = contract(named: request, mchID: merchant.mchID) else { return .failure(Self.noContract) }
            terminate(contract.contractID, mode: "3", remark: request["contract_termination_remark"])
            return .success([
                ("contract_id", contract.contractID), ("plan_id", contract.signing.planID),
                ("contract_code", contract.signing.contractCode),
            ])
        case "pay/pappayapply": return deduct(request, merchant: merchant, signType: signType)
        default:
            let answer = orderQuery(request)
            guard case .success(let fields) = answer, let key = find(request), let contractID = orders[key]?.fields["contract_id"] else {
                return answer.flatMap { _ in .failure(BusinessError("ORDERNOTEXIST", "订单不存在")) }
            }
            return .success(fields + [("contract_id", contractID)])
        }
    }

    static let noContract = BusinessError("CONTRACT_NOT_EXIST", "签约协议不存在")

    /// Remembers a signing request (from `preentrustweb` or an opened signing address) for the payer.
    /// - Returns: the request, or why it is refused.
    func remember(
        _ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant, signType: WeChatPay.V2.SignType
    ) -> Result<WeChatContractDesk.Signing, BusinessError> {
        for name in ["plan_id", "contract_code", "request_serial", "contract_display_account", "notify_url", "version", "timestamp"]
        where (request[name] ?? "").isEmpty {
            return .failure(BusinessError("PARAM_ERROR", "缺少参数\(name)"))
        }
        guard let serial = request["request_serial"], Int64(serial) != nil else {
            return .failure(BusinessError("PARAM_ERROR", "request_serial参数格式错误"))
        }
        let planID = request["plan_id"]!
        let contractCode = request["contract_code"]!
        if let signed = papay.contract(mchID: merchant.mchID, planID: planID, contractCode: contractCode), signed.terminatedAt == nil {
            return .failure(BusinessError("CONTRACT_ALREADY_EXIST", "该签约协议号已签约"))
        }
        let signing = WeChatContractDesk.Signing(
            mchID: merchant.mchID, appID: merchant.appID, planID: planID, contractCode: contractCode, requestSerial: serial,
            displayAccount: request["contract_display_account"]!, notifyURL: request["notify_url"]!, signType: signType)
        papay.signings[WeChatContractDesk.key(merchant.mchID, planID, contractCode)] = signing
        papay.lastNotifyURLs[merchant.mchID] = signing.notifyURL
        return .success(signing)
    }

    /// The merchant's contract a call names: `contract_id`, `plan_id` + `contract_code`, or `plan_id` + `openid`.
    private func contract(named request: WeChatPay.V2.XMLDocument, mchID: String) -> WeChatContractDesk.Contract? {
        if let id = request["contract_id"], !id.isEmpty {
            return papay.contracts[id].flatMap { $0.signing.mchID == mchID ? $0 : nil }
        }
        guard let planID = request["plan_id"], !planID.isEmpty else { return nil }
        if let code = request["contract_code"], !code.isEmpty { return papay.contract(mchID: mchID, planID: planID, contractCode: code) }
        guard let openID = request["openid"], !openID.isEmpty else { return nil }
        return papay.contracts.values.filter { $0.signing.mchID == mchID && $0.signing.planID == planID && $0.openID == openID }
            .max { $0.signedAt < $1.signedAt }
    }

    static func contractFields(_ contract: WeChatContractDesk.Contract) -> [(String, String)] {
        var fields = [
            ("contract_id", contract.contractID), ("plan_id", contract.signing.planID), ("contract_code", contract.signing.contractCode),
            ("request_serial", contract.signing.requestSerial), ("contract_display_account", contract.signing.displayAccount),
            ("contract_state", contract.state), ("contract_signed_time", BeijingTime.string(from: contract.signedAt, .dateTime)),
            ("contract_expired_time", BeijingTime.string(from: contract.expiresAt, .dateTime)), ("openid", contract.openID),
        ]
        if let ended = contract.terminatedAt {
            fields += [
                ("contract_terminated_time", BeijingTime.string(from: ended, .dateTime)),
                ("contract_termination_mode", contract.terminationMode ?? "0"),
            ]
            if let remark = contract.remark { fields.append(("contract_termination_remark", remark)) }
        }
        return fields
    }

    /// Ends a signed contract and sends `DELETE`; one already ended stays as it ended.
    func terminate(_ contractID: String, mode: String, remark: String?) {
        guard var contract = papay.contracts[contractID], contract.terminatedAt == nil else { return }
        contract.terminatedAt = papay.clock()
        contract.terminationMode = mode
        contract.remark = remark.flatMap { $0.isEmpty ? nil : $0 }
        papay.contracts[contractID] = contract
        notifyContract(contract, change: "DELETE")
    }

    /// The contract notification (`change_type` `ADD` or `DELETE`), signed as the signing request was.
    func notifyContract(_ contract: WeChatContractDesk.Contract, change: String) {
        var fields = [
            ("return_code", "SUCCESS"), ("return_msg", "OK"), ("result_code", "SUCCESS"), ("mch_id", contract.signing.mchID),
            ("contract_code", contract.signing.contractCode), ("openid", contract.openID), ("plan_id", contract.signing.planID),
            ("change_type", change), ("operate_time", BeijingTime.string(from: contract.terminatedAt ?? contract.signedAt, .dateTime)),
            ("contract_id", contract.contractID), ("contract_expired_time", BeijingTime.string(from: contract.expiresAt, .dateTime)),
            ("request_serial", contract.signing.requestSerial),
        ]
        if let mode = contract.terminationMode { fields.append(("contract_termination_mode", mode)) }
        let signType = contract.signing.signType
        if signType != .md5 { fields.append(("sign_type", signType.rawValue)) }
        guard let merchant = merchants[contract.signing.mchID], !contract.signing.notifyURL.isEmpty else { return }
        fields.append(("sign", merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: signType)))
        delivery.deliver(
            key: contract.contractID + ":" + change, url: contract.signing.notifyURL,
            body: Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8), contentType: "text/xml; charset=utf-8",
            schedule: NotificationDelivery.wechatSchedule
        ) { response in
            response.status == 200 && (try? WeChatPay.V2.XMLDocument(parsing: Array(response.body)))?["return_code"] == "SUCCESS"
        }
    }

    /// `pay/pappayapply`.
    private func deduct(
        _ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant, signType: WeChatPay.V2.SignType
    ) -> Result<[(String, String)], BusinessError> {
        for name in ["body", "out_trade_no", "total_fee", "spbill_create_ip", "notify_url", "trade_type", "contract_id"]
        where (request[name] ?? "").isEmpty {
            return .failure(BusinessError("PARAM_ERROR", "缺少参数\(name)"))
        }
        guard request["trade_type"] == "PAP" else { return .failure(BusinessError("PARAM_ERROR", "trade_type参数格式错误")) }
        let outTradeNo = request["out_trade_no"]!
        guard TradeNumber.isValid(outTradeNo, for: .wechat) else { return .failure(BusinessError("PARAM_ERROR", "out_trade_no参数格式错误")) }
        guard let fee = Int64(request["total_fee"]!), fee > 0 else { return .failure(BusinessError("PARAM_ERROR", "total_fee参数格式错误")) }
        let contractID = request["contract_id"]!
        let fingerprint = ["body", "total_fee", "fee_type", "contract_id", "attach"].map { "\($0)=\(request[$0] ?? "")" }.joined(
            separator: "&")
        if let existing = orders[outTradeNo] {
            // The same deduction sent again is the same deduction, whatever it has become since.
            guard existing.fields["trade_type"] == "PAP", existing.fingerprint == fingerprint else {
                return .failure(BusinessError("OUT_TRADE_NO_USED", "商户订单号重复"))
            }
            return .success([])
        }
        guard var contract = papay.contracts[contractID], contract.signing.mchID == merchant.mchID, contract.terminatedAt == nil,
            contract.signing.appID == merchant.appID
        else { return .failure(Self.noContract) }
        var fields: [String: String] = ["contract_id": contractID, "openid": contract.openID]
        for name in Self.businessFields where name != "openid" { fields[name] = request[name] }
        var order = Order(merchant: merchant, signType: signType, fingerprint: fingerprint, fields: fields, prepayID: "")
        order.state = "ACCEPT"
        orders[outTradeNo] = order
        let fails = contract.failingDeductions > 0
        if fails { contract.failingDeductions -= 1 }
        papay.contracts[contractID] = contract
        papay.deductions[outTradeNo] = .init(
            contractID: contractID, settlesAt: papay.clock().addingTimeInterval(papay.deductionDelay), fails: fails)
        return .success([])
    }
}

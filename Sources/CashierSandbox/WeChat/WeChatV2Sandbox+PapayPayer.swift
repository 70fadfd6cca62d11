import Cashier
import CashierCrypto
import CashierHTTP
import CashierWeb
import Foundation
import WeChatPay

/// The payer's side of withholding (委托代扣) in the sandbox, and the JSON calls tools script:
///
/// - `GET /wechat/papay/entrustweb?…&sign=…` (MD5) opens the signing page: the contract and
///   buttons to agree or refuse. `GET /wechat/papay/h5entrustweb?…&sign=…` (HMAC-SHA256)
///   answers WeChat's XML with a `redirect_url` to the same page.
/// - `POST /sandbox/wechat/contracts/sign {"plan_id","contract_code","outcome":"agree"|"refuse"}`:
///   the payer signs (the `ADD` notification goes to the request's `notify_url`) or refuses (no
///   notification) a request the merchant made by `preentrustweb` or by an opened address.
/// - `POST /sandbox/wechat/contracts/unsign {"contract_id"}` or `{"plan_id","contract_code"}`:
///   the payer ends the contract in the wallet (`DELETE`, `contract_termination_mode` 2).
/// - `POST /sandbox/wechat/contracts/balance {"contract_id","outcome":"insufficient"|"sufficient","deductions":1}`:
///   the payer's next deductions (1 unless given) under the contract settle `PAY_FAIL`
///   (`NOTENOUGH`), or no longer do.
/// - `POST /sandbox/wechat/contracts/settle {}`: settles the deductions due on the sandbox clock now
///   (and ends the contracts it has expired).
/// - `GET /sandbox/wechat/contracts`: every contract.
extension WeChatV2Sandbox {
    /// What the payer does with a signing request.
    public enum ContractOutcome: String, Sendable, Codable {
        case agree, refuse
    }

    /// The merchant a payer's signature of a request the sandbox never saw is for, when it knows
    /// several (`cashier-sandbox` names the merchant's own, not the service provider's).
    /// - Parameter mchID: the merchant's `mch_id`.
    public func setDefaultContractMerchant(_ mchID: String) {
        papay.defaultMerchant = mchID
    }

    /// The payer agrees to (or refuses) the merchant's signing request for `planID` + `contractCode`.
    /// - Returns: the signed contract; `nil` when refused.
    /// A request the sandbox never saw (an `entrustweb` address the merchant built and the payer's
    /// page was scripted past) is signed for the sandbox's merchant (its one, or ``setDefaultContractMerchant(_:)``'s), and told to where that
    /// merchant's latest signing request asked (or to no one: the merchant then learns by `querycontract`).
    /// - Throws: ``WeChatV3Sandbox/PayerRefusal``: no such request and no merchant to sign it for (404), already signed (409).
    public func signContract(planID: String, contractCode: String, outcome: ContractOutcome) throws -> SandboxContract? {
        if papay.signedContract(planID: planID, contractCode: contractCode) != nil {
            throw WeChatV3Sandbox.PayerRefusal(status: 409, code: "already_signed", message: "contract \(contractCode) is already signed")
        }
        if !papay.signings.values.contains(where: { $0.planID == planID && $0.contractCode == contractCode }),
            let merchant = merchants.count == 1 ? merchants.values.first : papay.defaultMerchant.flatMap({ merchants[$0] })
        {
            papay.signings[WeChatContractDesk.key(merchant.mchID, planID, contractCode)] = WeChatContractDesk.Signing(
                mchID: merchant.mchID, appID: merchant.appID, planID: planID, contractCode: contractCode, requestSerial: "0",
                displayAccount: contractCode, notifyURL: papay.lastNotifyURLs[merchant.mchID] ?? "", signType: merchant.signType)
        }
        guard let (key, signing) = papay.signings.first(where: { $0.value.planID == planID && $0.value.contractCode == contractCode })
        else {
            throw WeChatV3Sandbox.PayerRefusal(
                status: 404, code: "signing_not_found",
                message: "no signing request for plan \(planID), contract \(contractCode): open entrustweb or call preentrustweb first")
        }
        papay.signings[key] = nil
        guard outcome == .agree else { return nil }
        let now = papay.clock()
        let contract = WeChatContractDesk.Contract(
            signing: signing,
            contractID: "2" + BeijingTime.string(from: now, .compact) + SecureRandom.string(count: 9, alphabet: "0123456789"),
            openID: "oSbx" + SecureRandom.alphanumeric(count: 24), signedAt: now,
            expiresAt: now.addingTimeInterval(WeChatContractDesk.validity))
        papay.contracts[contract.contractID] = contract
        notifyContract(contract, change: "ADD")
        return Self.view(contract)
    }

    /// The payer ends a contract in the WeChat wallet (`contract_termination_mode` 2).
    /// - Parameters:
    ///   - contractID: the contract's `contract_id`; or, when `nil`,
    ///   - planID: its `plan_id` and
    ///   - contractCode: its `contract_code`.
    /// - Throws: ``WeChatV3Sandbox/PayerRefusal``: no such signed contract (404).
    @discardableResult
    public func unsignContract(contractID: String?, planID: String? = nil, contractCode: String? = nil) throws -> SandboxContract {
        let found =
            contractID.flatMap { papay.contracts[$0] }
            ?? planID.flatMap { plan in contractCode.flatMap { papay.signedContract(planID: plan, contractCode: $0) } }
        guard let found, found.terminatedAt == nil else {
            throw WeChatV3Sandbox.PayerRefusal(status: 404, code: "contract_not_found", message: "no signed contract by that number")
        }
        terminate(found.contractID, mode: "2", remark: nil)
        return Self.view(papay.contracts[found.contractID] ?? found)
    }

    /// A signing address opened by the payer (`entrustweb`, MD5; `h5entrustweb`, HMAC-SHA256): its
    /// signature verified with the merchant's key and the request remembered.
    /// - Returns: the request, or why it is refused (WeChat's words).
    func openSigningAddress(_ query: [(name: String, value: String)], type: WeChatPay.V2.SignType) -> Result<
        WeChatContractDesk.Signing, BusinessError
    > {
        let fields = Dictionary(query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let mchID = fields["mch_id"], let merchant = merchants[mchID] else {
            return .failure(BusinessError("PARAM_ERROR", "mch_id参数格式错误或商户不存在"))
        }
        guard fields["appid"] == merchant.appID else { return .failure(BusinessError("PARAM_ERROR", "appid和mch_id不匹配")) }
        guard let sign = fields["sign"],
            merchant.signer.isValidSignature(sign, for: fields.lazy.map { (key: $0.key, value: $0.value) }, type: type)
        else { return .failure(BusinessError("SIGNERROR", "签名错误")) }
        return remember(WeChatPay.V2.XMLDocument(fields.map { ($0.key, $0.value) }), merchant: merchant, signType: type)
    }

    /// A signing request waiting for the payer, by `plan_id` + `contract_code`.
    func waitingSigning(planID: String, contractCode: String) -> WeChatContractDesk.Signing? {
        papay.signings.values.first { $0.planID == planID && $0.contractCode == contractCode }
    }

    /// The signing routes and the payer's JSON calls.
    nonisolated func registerPapay(on router: inout Router, prefix: String) {
        router.add("GET", "\(prefix)/papay/entrustweb") { request, _ in
            switch await self.openSigningAddress(request.query, type: .md5) {
            case .success(let signing): return await self.signingPage(planID: signing.planID, contractCode: signing.contractCode)
            case .failure(let error):
                return SandboxPages.notice(status: 400, title: "签约失败 Signing refused", "\(error.code): \(error.description)")
            }
        }
        router.add("GET", "\(prefix)/papay/h5entrustweb") { request, _ in
            let fields: [(String, String)]
            switch await self.openSigningAddress(request.query, type: .hmacSHA256) {
            case .success(let signing):
                let page =
                    (self.address.value ?? "http://127.0.0.1/") + "sandbox/wechat/contracts/sign?plan_id="
                    + Self.queryEncoded(signing.planID) + "&contract_code=" + Self.queryEncoded(signing.contractCode)
                fields = [("return_code", "SUCCESS"), ("return_msg", "OK"), ("result_code", "SUCCESS"), ("redirect_url", page)]
            case .failure(let error):
                fields = [
                    ("return_code", "SUCCESS"), ("return_msg", "OK"), ("result_code", "FAIL"), ("err_code", error.code),
                    ("result_msg", error.description),
                ]
            }
            return .text(WeChatPay.V2.XMLDocument(fields).xmlString, contentType: "text/xml; charset=utf-8")
        }
        router.add("GET", "/sandbox/wechat/contracts/sign") { request, _ in
            await self.signingPage(planID: request.queryValue("plan_id") ?? "", contractCode: request.queryValue("contract_code") ?? "")
        }
        router.add("POST", "/sandbox/wechat/contracts/sign") { request, _ in
            let form = request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true
            let object: [String: Any]? = form ? request.formFields : SandboxControl.object(request)
            guard let object, let planID = object["plan_id"] as? String, let code = object["contract_code"] as? String,
                let agrees = SandboxControl.agrees(object["outcome"])
            else { return SandboxControl.invalid(#"expected {"plan_id":"…","contract_code":"…","outcome":"agree"|"refuse"}"#) }
            do {
                let contract = try await self.signContract(planID: planID, contractCode: code, outcome: agrees ? .agree : .refuse)
                if form { return await self.signingPage(planID: planID, contractCode: code, refused: contract == nil) }
                guard let contract else { return .json(["plan_id": planID, "contract_code": code, "outcome": "refuse"]) }
                return .json(contract)
            } catch let refusal as WeChatV3Sandbox.PayerRefusal {
                return .error(status: refusal.status, code: refusal.code, message: refusal.message)
            } catch {
                return .error(status: 500, code: "internal", message: "the contract could not be signed")
            }
        }
        router.add("POST", "/sandbox/wechat/contracts/unsign") { request, _ in
            guard let object = SandboxControl.object(request),
                object["contract_id"] is String || (object["plan_id"] is String && object["contract_code"] is String)
            else { return SandboxControl.invalid(#"expected {"contract_id":"…"} or {"plan_id":"…","contract_code":"…"}"#) }
            do {
                return .json(
                    try await self.unsignContract(
                        contractID: object["contract_id"] as? String, planID: object["plan_id"] as? String,
                        contractCode: object["contract_code"] as? String))
            } catch let refusal as WeChatV3Sandbox.PayerRefusal {
                return .error(status: refusal.status, code: refusal.code, message: refusal.message)
            } catch {
                return .error(status: 500, code: "internal", message: "the contract could not be ended")
            }
        }
        router.add("POST", "/sandbox/wechat/contracts/balance") { request, _ in
            guard let object = SandboxControl.object(request), let id = object["contract_id"] as? String,
                let outcome = object["outcome"] as? String, outcome == "insufficient" || outcome == "sufficient"
            else {
                return SandboxControl.invalid(#"expected {"contract_id":"…","outcome":"insufficient"|"sufficient","deductions":1}"#)
            }
            let count = outcome == "sufficient" ? 0 : (object["deductions"] as? Int ?? 1)
            guard await self.setInsufficientBalance(contractID: id, deductions: count) else {
                return .error(status: 404, code: "contract_not_found", message: "no contract \(id) in the sandbox")
            }
            return .json(["contract_id": id, "outcome": outcome, "failing_deductions": String(count)])
        }
        router.add("POST", "/sandbox/wechat/contracts/settle") { _, _ in
            .json(["settled": await self.sweepPapay()])
        }
        router.add("GET", "/sandbox/wechat/contracts") { _, _ in
            .json(["data": await self.contracts()])
        }
    }

    /// The payer's signing page: the contract and the agree/refuse form, or what became of it.
    func signingPage(planID: String, contractCode: String, refused: Bool = false) -> HTTPServerResponse {
        let signed = papay.signedContract(planID: planID, contractCode: contractCode)
        guard let signing = waitingSigning(planID: planID, contractCode: contractCode) ?? signed?.signing else {
            let title = refused ? "已拒绝 Refused" : "没有签约请求 No signing request"
            return SandboxPages.notice(status: refused ? 200 : 404, title: title, "Plan \(planID), contract \(contractCode).")
        }
        let hidden = [("plan_id", planID), ("contract_code", contractCode)].map {
            "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(HTMLText.escape($0.1))\">"
        }.joined()
        let actions =
            signed == nil
            ? """
            <form method="post" action="/sandbox/wechat/contracts/sign">\(hidden)\
            <button type="submit" name="outcome" value="agree" id="agree">同意并开通 Agree</button> \
            <button type="submit" name="outcome" value="refuse" id="refuse" class="secondary">拒绝 Refuse</button></form>
            """
            : "<p id=\"state\">已开通 Signed · <code>\(HTMLText.escape(signed?.contractID ?? ""))</code></p>"
        return HTMLPage(
            title: "免密支付 Withholding contract (sandbox)",
            body: """
                <main class="cashier"><h1>开通免密支付 Let the merchant charge you</h1>\
                <p id="account">\(HTMLText.escape(signing.displayAccount))</p>\
                <p class="muted" id="merchant">商户 \(HTMLText.escape(signing.mchID)) · 模板 \(HTMLText.escape(planID)) · \
                <code>\(HTMLText.escape(contractCode))</code></p>\(actions)</main>
                """
        ).response()
    }

    static func queryEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }
}

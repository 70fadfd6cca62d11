import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierWeb
import Foundation

/// Signing and ending agreements, as the payer does them, and their notifications:
///
/// - the page-sign address (GET or POST on the gateway with `method=alipay.user.agreement.page.sign`)
///   verifies the request, keeps the agreement as `TEMP` and shows the payer an agree / refuse page;
/// - `POST /sandbox/alipay/agreements/sign {"external_agreement_no":"…","outcome":"agree"|"refuse"}`
///   does the same as a script: it acts on the signing the page-sign address registered, or, with
///   `"sign_string":"…"` (the app's signed string, which the merchant never sends to the gateway), on
///   that request, registered there and then;
/// - agreeing makes the agreement `NORMAL` and posts `dut_user_sign` to the request's `notify_url`;
///   refusing drops the signing (Alipay tells the merchant nothing);
/// - `POST /sandbox/alipay/agreements/unsign {"agreement_no":"…"}` (or `external_agreement_no`): the
///   payer ends it in the Alipay app; `dut_user_unsign` goes to the app's **application gateway**
///   (`POST /sandbox/alipay/gateway {"app_id","url"}`);
/// - `POST /sandbox/alipay/agreements/balance {"agreement_no"|"external_agreement_no","outcome":"insufficient"|"sufficient"|"delayed"}`;
/// - `POST /sandbox/alipay/agreements/advance {"days":30}` (or `"seconds"`) moves the agreement clock on;
/// - `POST /sandbox/alipay/agreements/early_days {"days":3}` sets how early a period's charge is allowed (default 5).
extension AlipaySandbox {
    /// Why a signing request was refused.
    struct SigningRefusal: Error {
        let message: String
    }

    /// Verifies a signing request (`alipay.user.agreement.page.sign`) and keeps its agreement as
    /// `TEMP` — or answers the agreement already signed under the same number, product and scene.
    /// - Returns: the `agreement_no`.
    func registerSigning(_ parameters: [String: String]) -> Result<String, SigningRefusal> {
        guard let appID = parameters["app_id"], let appKey = apps[appID], let sign = parameters["sign"],
            let type = Alipay.SignType(rawValue: parameters["sign_type"] ?? "RSA2"),
            Alipay.Signer.isValidSignature(sign, content: Alipay.Signer.content(parameters), publicKey: appKey, type: type)
        else {
            return .failure(SigningRefusal(message: "the request's signature does not verify with the app's key (isv.invalid-signature)"))
        }
        guard parameters["method"] == "alipay.user.agreement.page.sign" else {
            return .failure(SigningRefusal(message: "method is not alipay.user.agreement.page.sign"))
        }
        guard let biz = parameters["biz_content"].flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) }) as? [String: Any],
            let product = (biz["personal_product_code"] as? String).flatMap(Alipay.AgreementProduct.init(personalProductCode:)),
            let scene = biz["sign_scene"] as? String, !scene.isEmpty, let externalNo = biz["external_agreement_no"] as? String,
            !externalNo.isEmpty, externalNo.count <= 32
        else {
            return .failure(
                SigningRefusal(
                    message:
                        "biz_content needs personal_product_code (CYCLE_PAY_AUTH_P or GENERAL_WITHHOLDING_P), sign_scene and external_agreement_no"
                ))
        }
        if let code = biz["product_code"] as? String, code != product.productCode {
            return .failure(SigningRefusal(message: "product_code \(code) does not go with \(product.personalProductCode)"))
        }
        var rule: Alipay.PeriodRule?
        switch (product, biz["period_rule_params"] as? [String: Any]) {
        case (.cyclePay, let params?):
            do {
                let parsed = try Alipay.PeriodRule(biz: params)
                try parsed.validate()
                rule = parsed
            } catch let error as PaymentError {
                return .failure(SigningRefusal(message: error.message))
            } catch {
                return .failure(SigningRefusal(message: "period_rule_params is not readable"))
            }
        case (.cyclePay, nil): return .failure(SigningRefusal(message: "a CYCLE_PAY_AUTH_P agreement needs period_rule_params"))
        default: break
        }
        let key = AlipayAgreementDesk.key(appID, externalNo, product, scene)
        if let number = agreementDesk.latest[key], let existing = agreementDesk.agreements[number] {
            if existing.status == .normal { return .success(number) }
            if existing.status == .temporary { agreementDesk.agreements[number] = nil }
        }
        let number = "2026" + SecureRandom.string(count: 16, alphabet: "0123456789")
        agreementDesk.agreements[number] = AlipayAgreementDesk.Agreement(
            appID: appID, agreementNo: number, externalNo: externalNo, product: product, signScene: scene, rule: rule,
            anchor: rule?.executeDate, notifyURL: parameters["notify_url"], returnURL: parameters["return_url"],
            created: agreementDesk.now())
        agreementDesk.latest[key] = number
        if let url = parameters["notify_url"] { agreementDesk.lastNotifyURLs[appID] = url }
        return .success(number)
    }

    /// The payer agrees (the agreement becomes `NORMAL`, `dut_user_sign` is posted) or refuses (the signing is dropped).
    /// - Returns: the agreement after it; `nil` when refused or unknown.
    @discardableResult
    func decideSigning(_ number: String, agree: Bool) -> AlipayAgreementDesk.Agreement? {
        guard var agreement = agreementDesk.agreements[number] else { return nil }
        guard agreement.status == .temporary else { return agreement }
        guard agree else {
            agreementDesk.agreements[number] = nil
            return nil
        }
        agreement.status = .normal
        agreement.signed = agreementDesk.now()
        agreementDesk.agreements[number] = agreement
        if let url = agreement.notifyURL { notifyAgreement(agreement, url: url) }
        return agreement
    }

    /// Stops an agreement and posts `dut_user_unsign` to `notifyURL` when there is one.
    func endAgreement(_ number: String, notifyURL: String?) {
        guard var agreement = agreementDesk.agreements[number], agreement.status != .stopped else { return }
        agreement.status = .stopped
        agreement.ended = agreementDesk.now()
        agreementDesk.agreements[number] = agreement
        if let notifyURL { notifyAgreement(agreement, url: notifyURL) }
    }

    /// The payer's JSON sign call. - Returns: the agreement, or why not.
    func payerSign(externalNo: String?, signString: String?, agree: Bool) -> Result<SandboxAlipayAgreement?, SigningRefusal> {
        let number: String
        if let signString {
            guard let parameters = try? Alipay.FormBody.parse(Array(signString.utf8)) else {
                return .failure(SigningRefusal(message: "sign_string is not a form-encoded request"))
            }
            switch registerSigning(parameters) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let registered): number = registered
            }
        } else {
            if agreementDesk.find(agreementNo: nil, externalNo: externalNo) == nil, let externalNo,
                let appID = apps.count == 1 ? apps.keys.first : agreementDesk.defaultApp
            {
                unseenSigning(appID: appID, externalNo: externalNo)
            }
            guard let agreement = agreementDesk.find(agreementNo: nil, externalNo: externalNo) else {
                return .failure(
                    SigningRefusal(
                        message: "no signing under that external_agreement_no: open the page-sign address first, or pass sign_string"))
            }
            number = agreement.agreementNo
        }
        return .success(decideSigning(number, agree: agree).map(snapshot))
    }

    /// The app a payer's signature of a request the sandbox never saw is for, when it knows several
    /// apps (`cashier-sandbox` names the merchant's own, not the service provider's).
    /// - Parameter appID: the merchant's app.
    public func setDefaultAgreementApp(_ appID: String) {
        agreementDesk.defaultApp = appID
    }

    /// A signing the sandbox never saw (the app's sign string goes from the merchant to the payer's
    /// Alipay, not to the gateway), for the sandbox's one app: a monthly cycle agreement from today
    /// under Cashier's scene, told to where the app's latest signing request asked (or to no one: the
    /// merchant then learns by `alipay.user.agreement.query`).
    func unseenSigning(appID: String, externalNo: String) {
        let rule = Alipay.PeriodRule(
            periodType: .month, period: 1, executeTime: BeijingTime.string(from: agreementDesk.now(), .day),
            singleAmount: Money(minorUnits: 100_000_00, currency: .cny))
        let number = "2026" + SecureRandom.string(count: 16, alphabet: "0123456789")
        agreementDesk.agreements[number] = AlipayAgreementDesk.Agreement(
            appID: appID, agreementNo: number, externalNo: externalNo, product: .cyclePay, signScene: "INDUSTRY|DIGITAL_MEDIA", rule: rule,
            anchor: rule.executeDate, notifyURL: agreementDesk.lastNotifyURLs[appID], returnURL: nil, created: agreementDesk.now())
        agreementDesk.latest[AlipayAgreementDesk.key(appID, externalNo, .cyclePay, "INDUSTRY|DIGITAL_MEDIA")] = number
    }

    /// The payer ends an agreement in the Alipay app: `dut_user_unsign` to the app's application gateway.
    /// - Returns: the agreement after it; `nil` when unknown.
    @discardableResult
    public func payerUnsign(agreementNo: String?, externalAgreementNo: String? = nil) -> SandboxAlipayAgreement? {
        guard let agreement = agreementDesk.find(agreementNo: agreementNo, externalNo: externalAgreementNo) else { return nil }
        endAgreement(agreement.agreementNo, notifyURL: royalty.gateways[agreement.appID])
        return agreementDesk.agreements[agreement.agreementNo].map(snapshot)
    }

    /// Acts as the payer on a signing (the page or the app's sign string), as the JSON call does.
    /// - Parameters:
    ///   - externalAgreementNo: the signing the page-sign address registered.
    ///   - signString: the app's signed string, registered first (then `externalAgreementNo` is not needed).
    ///   - agree: agree or refuse.
    /// - Returns: the signed agreement; `nil` when refused.
    /// - Throws: `PaymentError.invalidRequest` for a request that does not verify or break the rules, or no such signing.
    public func payerSign(externalAgreementNo: String?, signString: String? = nil, agree: Bool) throws -> SandboxAlipayAgreement? {
        switch payerSign(externalNo: externalAgreementNo, signString: signString, agree: agree) {
        case .success(let agreement): return agreement
        case .failure(let refusal): throw PaymentError(.invalidRequest, provider: .alipay, refusal.message)
        }
    }

    /// Posts `dut_user_sign` (a `NORMAL` agreement) or `dut_user_unsign` (a stopped one), signed as
    /// trade notifications are (without `sign_type`, added afterwards).
    func notifyAgreement(_ agreement: AlipayAgreementDesk.Agreement, url: String) {
        let stamp = { (date: Date) in BeijingTime.string(from: date, .dateTime) }
        let signed = agreement.status == .normal
        let signTime = stamp(agreement.signed ?? agreement.created)
        var fields: [String: String] = [
            "notify_time": stamp(agreementDesk.now()), "notify_type": signed ? "dut_user_sign" : "dut_user_unsign",
            "notify_id": SecureRandom.alphanumeric(count: 34), "app_id": agreement.appID, "auth_app_id": agreement.appID,
            "charset": "utf-8", "version": "1.0", "agreement_no": agreement.agreementNo, "external_agreement_no": agreement.externalNo,
            "status": signed ? "NORMAL" : "UNSIGN", "alipay_user_id": agreement.payer, "alipay_logon_id": "san***@sandbox.example",
            "personal_product_code": agreement.product.personalProductCode, "sign_scene": agreement.signScene, "sign_time": signTime,
            "valid_time": signTime, "invalid_time": "2115-02-01 00:00:00",
        ]
        if !signed { fields["unsign_time"] = stamp(agreement.ended ?? agreementDesk.now()) }
        fields["sign"] = (try? alipayKey.signature(for: Alipay.Signer.content(fields), scheme: .insecurePKCS1v1_5SHA256)).map {
            Base64.encode($0)
        }
        fields["sign_type"] = "RSA2"
        let body = Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        delivery.deliver(
            key: agreement.agreementNo + (signed ? ":dut_user_sign" : ":dut_user_unsign"), url: url, body: Data(body.utf8),
            contentType: "application/x-www-form-urlencoded;charset=utf-8", schedule: Self.schedule
        ) { response in
            response.status == 200
                && String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "success"
        }
    }

    // MARK: The payer's page

    /// The page a page-sign address opens: what the payer signs, with agree and refuse.
    func agreementSignPage(_ parameters: [String: String], actionPath: String) -> HTTPServerResponse {
        let number: String
        switch registerSigning(parameters) {
        case .failure(let refusal): return Self.page(status: 400, title: "签约失败", body: "<p>\(HTMLText.escape(refusal.message))</p>")
        case .success(let registered): number = registered
        }
        guard let agreement = agreementDesk.agreements[number] else {
            return Self.page(status: 400, title: "签约失败", body: "<p>This signing has expired.</p>")
        }
        guard agreement.status == .temporary else {
            return Self.page(
                status: 200, title: "已签约",
                body: "<p id=\"agreement_no\">\(number)</p><p>This agreement is signed already.</p>", returnURL: agreement.returnURL)
        }
        let token = SecureRandom.alphanumeric(count: 32)
        agreementDesk.pages[token] = number
        var terms = "<p id=\"external_agreement_no\">\(HTMLText.escape(agreement.externalNo))</p>"
        terms += "<p id=\"product\" class=\"muted\">\(agreement.product.personalProductCode) · \(HTMLText.escape(agreement.signScene))</p>"
        if let rule = agreement.rule {
            terms += """
                <p id="period">\(rule.periodType.rawValue) × \(rule.period) from \(HTMLText.escape(rule.executeTime))</p>\
                <p class="amount big" id="single_amount">≤ ¥\(rule.singleAmount.decimalString)</p>
                """
        }
        let form = { (action: String, label: String) in
            """
            <form method="post" action="\(HTMLText.escape(actionPath))"><input type="hidden" name="token" value="\(token)">\
            <input type="hidden" name="action" value="\(action)"><button type="submit" id="\(action)">\(label)</button></form>
            """
        }
        return Self.page(
            status: 200, title: "支付宝签约 (sandbox)",
            body: terms + "<p id=\"merchant\" class=\"muted\">\(HTMLText.escape(agreement.appID))</p>"
                + form("agree", "同意并签约 Agree") + form("refuse", "拒绝 Refuse"),
            returnURL: agreement.returnURL)
    }

    /// Agree or refuse from the page, then back to the request's `return_url` when it gave one.
    func agreementPageAction(_ fields: [String: String]) -> HTTPServerResponse {
        guard let token = fields["token"], let number = agreementDesk.pages.removeValue(forKey: token),
            let returnURL = agreementDesk.agreements[number].map({ $0.returnURL })
        else { return Self.page(status: 400, title: "页面已失效", body: "<p>This signing page has expired.</p>") }
        let signed = decideSigning(number, agree: fields["action"] == "agree")
        if let returnURL { return Self.redirect(returnURL) }
        return signed == nil
            ? Self.page(status: 200, title: "已拒绝", body: "<p>Refused: nothing was signed.</p>")
            : Self.page(status: 200, title: "签约成功", body: "<p id=\"agreement_no\">\(number)</p>")
    }

    // MARK: Routes

    nonisolated func registerAgreements(on router: inout Router, path: String) {
        router.add("POST", path.replacingOccurrences(of: "gateway.do", with: "agreement")) { request, _ in
            await self.agreementPageAction((try? Alipay.FormBody.parse(request.body)) ?? [:])
        }
        router.add("POST", "/sandbox/alipay/agreements/sign") { request, _ in
            guard let object = SandboxControl.object(request), let agrees = SandboxControl.agrees(object["outcome"]),
                object["external_agreement_no"] is String || object["sign_string"] is String
            else {
                return SandboxControl.invalid(#"expected {"external_agreement_no":"…","outcome":"agree"|"refuse"} (or "sign_string":"…")"#)
            }
            let externalNo = object["external_agreement_no"] as? String
            switch await self.payerSign(externalNo: externalNo, signString: object["sign_string"] as? String, agree: agrees) {
            case .failure(let refusal): return .error(status: 400, code: "signing_refused", message: refusal.message)
            case .success(let agreement?): return .json(agreement)
            case .success(nil): return .json(["external_agreement_no": externalNo ?? "", "status": "REFUSED"])
            }
        }
        router.add("POST", "/sandbox/alipay/agreements/unsign") { request, _ in
            guard let object = SandboxControl.object(request), object["agreement_no"] is String || object["external_agreement_no"] is String
            else { return SandboxControl.invalid(#"expected {"agreement_no":"…"} or {"external_agreement_no":"…"}"#) }
            guard
                let agreement = await self.payerUnsign(
                    agreementNo: object["agreement_no"] as? String, externalAgreementNo: object["external_agreement_no"] as? String)
            else { return .error(status: 404, code: "agreement_not_found", message: "no such agreement in the sandbox") }
            return .json(agreement)
        }
        router.add("POST", "/sandbox/alipay/agreements/balance") { request, _ in
            let expected = #"expected {"agreement_no"|"external_agreement_no":"…","outcome":"insufficient"|"sufficient"|"delayed"}"#
            guard let object = SandboxControl.object(request), let outcome = object["outcome"] as? String else {
                return SandboxControl.invalid(expected)
            }
            guard
                await self.setAgreementBalance(
                    agreementNo: object["agreement_no"] as? String, externalAgreementNo: object["external_agreement_no"] as? String,
                    outcome: outcome)
            else { return .error(status: 404, code: "agreement_not_found", message: "no such agreement, or " + expected) }
            return .json(["outcome": outcome])
        }
        router.add("POST", "/sandbox/alipay/agreements/advance") { request, _ in
            guard let object = SandboxControl.object(request) else {
                return SandboxControl.invalid(#"expected {"days":30} or {"seconds":3600}"#)
            }
            let days = (object["days"] as? NSNumber)?.doubleValue ?? 0
            let seconds = (object["seconds"] as? NSNumber)?.doubleValue ?? 0
            guard days >= 0, seconds >= 0, days + seconds > 0 else {
                return SandboxControl.invalid(#"expected {"days":30} or {"seconds":3600}"#)
            }
            await self.advanceAgreementClock(by: days * 86_400 + seconds)
            return .json(["now": BeijingTime.string(from: await self.agreementNow(), .dateTime)])
        }
        router.add("POST", "/sandbox/alipay/agreements/early_days") { request, _ in
            guard let object = SandboxControl.object(request), let days = (object["days"] as? NSNumber)?.intValue, days >= 0 else {
                return SandboxControl.invalid(#"expected {"days":5}"#)
            }
            await self.setEarlyDeductionDays(days)
            return .json(["days": days])
        }
    }
}

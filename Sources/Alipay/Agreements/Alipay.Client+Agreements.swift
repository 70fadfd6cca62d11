public import Cashier
public import Foundation

/// Agreements (周期扣款, 商家扣款): the payer signs once (`alipay.user.agreement.page.sign`, a page
/// or the app's sign string), the merchant charges later with `alipay.trade.pay` and
/// `agreement_params`, reads and ends agreements (`alipay.user.agreement.query`, `…unsign`) and
/// moves a cycle agreement's next charge date (`alipay.user.agreement.executionplan.modify`).
extension Alipay.Client {
    /// The address a browser opens to sign: the gateway, GET, with the signed request as its query.
    /// - Parameters:
    ///   - sign: what the payer signs.
    ///   - notifyURL: where `dut_user_sign` is posted.
    ///   - returnURL: where the browser goes back once signed.
    /// - Throws: `PaymentError.invalidRequest` from ``Alipay/AgreementSign/biz()``.
    public func agreementSignURL(_ sign: Alipay.AgreementSign, notifyURL: String?, returnURL: String? = nil) throws -> URL {
        URL(string: gateway.absoluteString + "?" + (try agreementSignQuery(sign, notifyURL: notifyURL, returnURL: returnURL)))!
    }

    /// The signed string the app hands to the Alipay SDK to sign in the app (as an
    /// `alipay.trade.app.pay` order string is): the request's parameters, URL-encoded, `sign` included.
    /// - Parameters:
    ///   - sign: what the payer signs.
    ///   - notifyURL: where `dut_user_sign` is posted.
    /// - Throws: `PaymentError.invalidRequest` from ``Alipay/AgreementSign/biz()``.
    public func agreementSignString(_ sign: Alipay.AgreementSign, notifyURL: String?) throws -> String {
        try agreementSignQuery(sign, notifyURL: notifyURL, returnURL: nil)
    }

    private func agreementSignQuery(_ sign: Alipay.AgreementSign, notifyURL: String?, returnURL: String?) throws -> String {
        let parameters = try signedParameters(
            method: "alipay.user.agreement.page.sign", biz: try sign.biz(), notifyURL: notifyURL, returnURL: returnURL)
        return Alipay.FormBody.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Charges the payer under a signed agreement (`alipay.trade.pay` with `product_code` and
    /// `agreement_params.agreement_no`; no `auth_code`, no `scene`).
    /// - Parameters:
    ///   - outTradeNo: the merchant's trade number; sent again, Alipay answers the same trade.
    ///   - total: the amount, CNY.
    ///   - subject: what the payer sees.
    ///   - agreementNo: the agreement's `agreement_no`.
    ///   - product: the agreement's product (its `product_code` goes with the charge).
    ///   - notifyURL: where the trade's notification goes.
    ///   - extras: expiry, passback and goods.
    /// - Returns: paid, waiting (`10003`), or declined with Alipay's `sub_code`.
    /// - Throws: `PaymentError.invalidRequest` before sending; `.providerRejected` for any other
    ///   answer (`ACQ.TRADE_HAS_SUCCESS` for a trade paid before: query it; `ACQ.SYSTEM_ERROR`,
    ///   `20000`: unknown, query it); `.transport` and the verification errors.
    public func agreementPay(
        outTradeNo: String, total: Money, subject: String, agreementNo: String, product: Alipay.AgreementProduct = .cyclePay,
        notifyURL: String? = nil, extras: Alipay.TradeExtras = Alipay.TradeExtras()
    ) async throws -> Alipay.AgreementCharge {
        guard total.currency == .cny, total.isPositive else {
            throw PaymentError(.invalidRequest, provider: .alipay, "a charge under an agreement is more than 0 CNY")
        }
        guard !agreementNo.isEmpty else {
            throw PaymentError(.invalidRequest, provider: .alipay, "agreement_params needs the agreement_no")
        }
        let biz: [String: Any] = [
            "out_trade_no": outTradeNo, "total_amount": total.decimalString, "subject": subject, "product_code": product.productCode,
            "agreement_params": ["agreement_no": agreementNo],
        ]
        let method = "alipay.trade.pay"
        let node = try await answer(method, biz: biz.merging(extras.biz) { first, _ in first }, notifyURL: notifyURL)
        let code = node["code"] as? String
        let subCode = node["sub_code"] as? String
        switch code {
        case "10000":
            guard node["out_trade_no"] as? String == outTradeNo else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay,
                    "alipay.trade.pay answered about \(node["out_trade_no"] as? String ?? "no trade"), not \(outTradeNo)")
            }
            guard let tradeNo = node["trade_no"] as? String, let text = node["total_amount"] as? String,
                let amount = try? Money(decimal: text, currency: .cny)
            else {
                throw PaymentError(
                    .malformedMessage, provider: .alipay, "alipay.trade.pay answered 10000 without trade_no and total_amount")
            }
            return .paid(amount: amount, tradeNo: tradeNo)
        case "10003":
            return .waiting(tradeNo: node["trade_no"] as? String)
        case "40004" where subCode.map { $0 != "ACQ.SYSTEM_ERROR" && $0 != "ACQ.TRADE_HAS_SUCCESS" } ?? false:
            return .declined(Alipay.AgreementDecline(subCode: subCode ?? "", subMessage: node["sub_msg"] as? String))
        default:
            throw PaymentError(
                .providerRejected, provider: .alipay,
                "\(method) refused: \(node["sub_msg"] as? String ?? node["msg"] as? String ?? "no message")",
                providerCode: subCode ?? code, providerMessage: node["sub_msg"] as? String ?? node["msg"] as? String,
                details: "code \(code ?? "?") msg \(node["msg"] as? String ?? "?")")
        }
    }

    /// An agreement by Alipay's number (`alipay.user.agreement.query`).
    /// - Parameter agreementNo: `agreement_no`.
    /// - Returns: the agreement; `nil` when Alipay has none (`USER_AGREEMENT_NOT_EXIST`).
    /// - Throws: `.providerRejected` for another refusal; `.malformedMessage` for an answer about another agreement.
    public func agreementQuery(agreementNo: String) async throws -> Alipay.Agreement? {
        let agreement = try await agreementQuery(biz: ["agreement_no": agreementNo])
        guard agreement == nil || agreement?.agreementNo == agreementNo else {
            throw PaymentError(.malformedMessage, provider: .alipay, "alipay.user.agreement.query answered about another agreement")
        }
        return agreement
    }

    /// An agreement by the merchant's number (`alipay.user.agreement.query`).
    /// - Parameters:
    ///   - externalAgreementNo: `external_agreement_no`.
    ///   - product: its product (`personal_product_code`).
    ///   - signScene: its `sign_scene`.
    /// - Returns: the agreement; `nil` when Alipay has none.
    /// - Throws: as ``agreementQuery(agreementNo:)``.
    public func agreementQuery(externalAgreementNo: String, product: Alipay.AgreementProduct, signScene: String) async throws
        -> Alipay.Agreement?
    {
        let agreement = try await agreementQuery(biz: [
            "external_agreement_no": externalAgreementNo, "personal_product_code": product.personalProductCode, "sign_scene": signScene,
        ])
        guard agreement == nil || agreement?.externalAgreementNo == nil || agreement?.externalAgreementNo == externalAgreementNo else {
            throw PaymentError(.malformedMessage, provider: .alipay, "alipay.user.agreement.query answered about another agreement")
        }
        return agreement
    }

    private func agreementQuery(biz: [String: Any]) async throws -> Alipay.Agreement? {
        do {
            return try Alipay.Agreement(node: try await call("alipay.user.agreement.query", biz: biz))
        } catch let error as PaymentError where error.providerCode == "USER_AGREEMENT_NOT_EXIST" {
            return nil
        }
    }

    /// Ends an agreement (`alipay.user.agreement.unsign`); `dut_user_unsign` goes to `notifyURL` when given.
    /// - Parameters:
    ///   - agreementNo: `agreement_no`.
    ///   - notifyURL: where `dut_user_unsign` is posted.
    /// - Throws: `.providerRejected` (`USER_AGREEMENT_NOT_EXIST`, …).
    public func agreementUnsign(agreementNo: String, notifyURL: String? = nil) async throws {
        _ = try await call("alipay.user.agreement.unsign", biz: ["agreement_no": agreementNo], notifyURL: notifyURL)
    }

    /// Ends an agreement by the merchant's number (`alipay.user.agreement.unsign`).
    /// - Parameters:
    ///   - externalAgreementNo: `external_agreement_no`.
    ///   - product: its product.
    ///   - signScene: its `sign_scene`.
    ///   - notifyURL: where `dut_user_unsign` is posted.
    /// - Throws: as ``agreementUnsign(agreementNo:notifyURL:)``.
    public func agreementUnsign(externalAgreementNo: String, product: Alipay.AgreementProduct, signScene: String, notifyURL: String? = nil)
        async throws
    {
        _ = try await call(
            "alipay.user.agreement.unsign",
            biz: [
                "external_agreement_no": externalAgreementNo, "personal_product_code": product.personalProductCode,
                "sign_scene": signScene,
            ], notifyURL: notifyURL)
    }

    /// Moves a cycle agreement's next charge date (`alipay.user.agreement.executionplan.modify`):
    /// the schedule continues from `deductTime`, one period at a time.
    /// - Parameters:
    ///   - agreementNo: `agreement_no`.
    ///   - deductTime: the new date, `yyyy-MM-dd`.
    ///   - memo: why, as Alipay records it.
    /// - Returns: the date Alipay set (`deduct_time`).
    /// - Throws: `.providerRejected` with Alipay's `sub_code`.
    public func modifyExecutionPlan(agreementNo: String, deductTime: String, memo: String) async throws -> String {
        let node = try await call(
            "alipay.user.agreement.executionplan.modify", biz: ["agreement_no": agreementNo, "deduct_time": deductTime, "memo": memo])
        return node["deduct_time"] as? String ?? deductTime
    }
}

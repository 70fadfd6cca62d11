public import Cashier
public import Foundation

/// Withholding (委托代扣, `papay`): the payer signs a contract once, then the merchant deducts
/// under it without the payer present.
extension WeChatPay.V2.Client {
    /// The official-account (JSAPI) signing page (`papay/entrustweb`): a GET address the payer
    /// opens in WeChat, signed with MD5 as WeChat Pay requires for it whatever the merchant's
    /// sign type.
    ///
    /// ```swift
    /// let url = client.entrustWebURL(.init(planID: "12535", contractCode: "AG1", requestSerial: 1,
    ///                                      displayAccount: "会员 Alice", notifyURL: notifyURL))
    /// ```
    /// - Parameters:
    ///   - request: the contract to sign.
    ///   - timestamp: `timestamp`, now by default.
    /// - Returns: the address, every value percent-encoded.
    public func entrustWebURL(_ request: WeChatPay.V2.EntrustRequest, timestamp: Date = Date()) -> URL {
        signedURL("papay/entrustweb", request.fields(merchant: merchant, timestamp: timestamp), type: .md5)
    }

    /// The H5 signing address (`papay/h5entrustweb`), signed with HMAC-SHA256 as WeChat Pay
    /// requires for it. The merchant's server GETs it (``h5Entrust(_:clientIP:timestamp:)``) for
    /// the page the payer's mobile browser opens.
    /// - Parameters:
    ///   - request: the contract to sign.
    ///   - clientIP: `clientip`, the payer's IP address.
    ///   - timestamp: `timestamp`, now by default.
    public func h5EntrustWebURL(_ request: WeChatPay.V2.EntrustRequest, clientIP: String, timestamp: Date = Date()) -> URL {
        signedURL(
            "papay/h5entrustweb", request.fields(merchant: merchant, timestamp: timestamp) + [("clientip", clientIP)], type: .hmacSHA256)
    }

    /// Asks for the H5 signing page: GETs ``h5EntrustWebURL(_:clientIP:timestamp:)`` and returns the
    /// `redirect_url` WeChat Pay answers (valid for minutes), which the payer's browser opens.
    /// - Parameters:
    ///   - request: the contract to sign.
    ///   - clientIP: `clientip`, the payer's IP address.
    ///   - timestamp: `timestamp`, now by default.
    /// - Returns: `redirect_url`.
    /// - Throws: `PaymentError.providerRejected` with WeChat Pay's `result_msg`, `.transport`, `.malformedMessage`.
    public func h5Entrust(_ request: WeChatPay.V2.EntrustRequest, clientIP: String, timestamp: Date = Date()) async throws -> String {
        let url = h5EntrustWebURL(request, clientIP: clientIP, timestamp: timestamp)
        let response = try await transport.send(HTTPRequest(method: "GET", url: url, timeout: .seconds(10)))
        guard response.status == 200 else {
            throw PaymentError(.transport, provider: .wechatV2, "papay/h5entrustweb answered HTTP \(response.status)")
        }
        let document = try WeChatPay.V2.XMLDocument(parsing: Array(response.body))
        guard document["return_code"] == "SUCCESS", document["result_code"] == "SUCCESS" else {
            let message = document["result_msg"] ?? document["return_msg"]
            throw PaymentError(
                .providerRejected, provider: .wechatV2, "papay/h5entrustweb refused: \(message ?? "FAIL")",
                providerCode: document["err_code"] ?? document["result_code"] ?? document["return_code"], providerMessage: message)
        }
        guard let redirect = document["redirect_url"], let page = URL(string: redirect), page.scheme == "https" || page.scheme == "http"
        else {
            throw PaymentError(.malformedMessage, provider: .wechatV2, "papay/h5entrustweb answered without a redirect_url")
        }
        return redirect
    }

    /// The app's pre-signing (`papay/preentrustweb`): the `pre_entrustweb_id` the app hands to
    /// the WeChat SDK (`WXOpenBusinessWebViewReq`, business type 12).
    /// - Parameters:
    ///   - request: the contract to sign.
    ///   - timestamp: `timestamp`, now by default.
    /// - Returns: `pre_entrustweb_id`.
    /// - Throws: `PaymentError.providerRejected` with `err_code` (`CONTRACT_ALREADY_EXIST`, …).
    public func preEntrust(_ request: WeChatPay.V2.EntrustRequest, timestamp: Date = Date()) async throws -> String {
        let fields = request.fields(merchant: merchant, timestamp: timestamp).filter { $0.0 != "appid" && $0.0 != "mch_id" }
        guard let id = try await call("papay/preentrustweb", fields)["pre_entrustweb_id"], !id.isEmpty else {
            throw PaymentError(.malformedMessage, provider: .wechatV2, "papay/preentrustweb answered without pre_entrustweb_id")
        }
        return id
    }

    /// Where a contract stands (`papay/querycontract`).
    /// - Parameter contract: `contract_id`, or `plan_id` + `contract_code`.
    /// - Throws: `PaymentError.providerRejected` with `err_code` (`CONTRACT_NOT_EXIST` when
    ///   there is none, not yet signed); `.malformedMessage` for an answer about another contract.
    public func queryContract(_ contract: WeChatPay.V2.ContractKey) async throws -> WeChatPay.V2.Contract {
        let document = try await call("papay/querycontract", contract.fields + [("version", "1.0")])
        guard contract.isNamed(by: document) else {
            throw PaymentError(.malformedMessage, provider: .wechatV2, "papay/querycontract answered about another contract")
        }
        return try WeChatPay.V2.Contract(document)
    }

    /// Ends a contract (`papay/deletecontract`): the merchant's termination (mode 3). WeChat Pay
    /// also sends the `DELETE` notification.
    /// - Parameters:
    ///   - contract: `contract_id`, or `plan_id` + `contract_code`.
    ///   - remark: `contract_termination_remark`, why (at most 256 characters).
    /// - Throws: `PaymentError.providerRejected` with `err_code` (`CONTRACT_NOT_EXIST`, …).
    public func deleteContract(_ contract: WeChatPay.V2.ContractKey, remark: String) async throws {
        _ = try await call("papay/deletecontract", contract.fields + [("contract_termination_remark", remark), ("version", "1.0")])
    }

    /// Asks for a deduction under a contract (`pay/pappayapply`). A `SUCCESS` answer is an
    /// acceptance only: the result comes as the payment notification or by
    /// ``papOrderQuery(outTradeNo:)``.
    /// - Parameter deduction: the contract, trade number and amount.
    /// - Returns: the verified answer.
    /// - Throws: `PaymentError.providerRejected` with `err_code` (`CONTRACT_NOT_EXIST`,
    ///   `OUT_TRADE_NO_USED`, `ORDERPAID`, `RULELIMIT`, …).
    @discardableResult
    public func papPayApply(_ deduction: WeChatPay.V2.Deduction) async throws -> WeChatPay.V2.XMLDocument {
        try await call("pay/pappayapply", deduction.fields)
    }

    /// Where a deduction stands (`pay/paporderquery`): `ACCEPT` (accepted, not yet deducted),
    /// `SUCCESS`, `PAY_FAIL`, `REFUND`, … — checked as ``orderQuery(outTradeNo:)``'s answer is.
    /// - Parameter outTradeNo: the deduction's trade number.
    public func papOrderQuery(outTradeNo: String) async throws -> WeChatPay.V2.OrderStatus {
        try await orderStatus("pay/paporderquery", outTradeNo: outTradeNo)
    }

    /// `base` + `endpoint` with `fields` and their `sign` as the query.
    private func signedURL(_ endpoint: String, _ fields: [(String, String)], type: WeChatPay.V2.SignType) -> URL {
        let sign = merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: type)
        let query = (fields + [("sign", sign)]).map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        return URL(string: (sandboxPrefix ? "sandboxnew/" : "") + endpoint + "?" + query, relativeTo: baseURL)!.absoluteURL
    }

    /// Every byte but RFC 3986's unreserved ones percent-encoded (WeChat Pay signs the values as
    /// they are and reads them decoded).
    static func percentEncoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

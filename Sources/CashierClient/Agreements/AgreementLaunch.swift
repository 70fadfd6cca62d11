import CashierWire
public import Foundation

/// What the app opens for the payer to sign an agreement (its `launch`, by `kind`).
public enum AgreementLaunch: Sendable, Equatable {
    /// `url`: a page to open — WeChat Pay's `entrustweb`, Alipay's page sign.
    case url(URL)
    /// `wechat_pre_entrust`: the id WeChat's SDK takes in `WXOpenBusinessWebViewReq` (business
    /// type 12) to show its signing page.
    case wechatPreEntrust(preEntrustWebID: String)
    /// `alipay_sign_string`: the signed `alipay.user.agreement.page.sign` parameters Alipay opens
    /// (see ``alipaySignURL(signString:)``).
    case alipaySignString(String)
    /// `applepay`: the payment request (Apple Pay JS JSON, with its `recurringPaymentRequest`) for
    /// the sheet; read it with ``ApplePayPaymentRequest/init(json:)``. The sheet's token goes to
    /// your backend, which sends it to `POST /v1/agreements/{id}/authorize`.
    case applePayRequest(Data)

    /// The launch as the server writes it.
    /// - Throws: ``CashierClientError`` `invalid_response` for an unknown kind or a missing field.
    init(_ json: AgreementLaunchJSON) throws {
        func missing(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the agreement's \(json.kind) launch has no \(field)")
        }
        switch json.kind {
        case "url":
            guard let text = json.url, let url = URL(string: text), url.scheme != nil else { throw missing("valid url") }
            self = .url(url)
        case "wechat_pre_entrust":
            guard let id = json.pre_entrustweb_id, !id.isEmpty else { throw missing("pre_entrustweb_id") }
            self = .wechatPreEntrust(preEntrustWebID: id)
        case "alipay_sign_string":
            guard let string = json.sign_string, !string.isEmpty else { throw missing("sign_string") }
            self = .alipaySignString(string)
        case "applepay":
            guard let request = json.payment_request, let data = try? JSONEncoder().encode(request) else {
                throw missing("payment_request")
            }
            self = .applePayRequest(data)
        default:
            throw CashierClientError(
                code: "invalid_response", message: "the agreement's launch is of a kind this SDK does not know: \(json.kind)")
        }
    }

    /// The address that opens Alipay's signing page in the Alipay app for `signString` (Alipay's
    /// app-sign scheme: `alipays://platformapi/startapp?appId=60000157&…&sign_params=…`).
    /// - Parameter signString: the launch's signed parameters, exactly as the server sent them.
    /// - Returns: the `alipays:` URL to open with `UIApplication.open(_:)`.
    public static func alipaySignURL(signString: String) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = signString.addingPercentEncoding(withAllowedCharacters: allowed) ?? signString
        // Alphanumerics and percent-escapes only after the prefix: always a valid URL.
        return URL(string: "alipays://platformapi/startapp?appId=60000157&appClearTop=false&startMultApp=YES&sign_params=" + encoded)!
    }
}

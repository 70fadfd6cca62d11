public import Foundation

/// What the app hands to the wallet.
public enum WalletParameters: Sendable, Equatable {
    /// WeChat's `PayReq` (`WXApi sendReq:`), with `timeStamp` as the integer PayReq wants.
    case wechat(WeChatPayRequest)
    /// A QR code's content to show (WeChat Native).
    case wechatQRCode(String)
    /// The signed order string for `payOrder:fromScheme:callback:`.
    case alipayOrderString(String)
    /// A QR code's content to show (Alipay precreate).
    case alipayQRCode(String)
    /// The payment request as Apple Pay JS / a `PKPaymentRequest` mapping takes it (JSON).
    case applePayRequest(Data)
    /// A page to open in a browser or web view (WeChat H5, Alipay's web cashier).
    case webPage(URL)

    init(json: [String: Any], method: PaymentMethod) throws {
        func missing(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the server's \(method.rawValue) parameters have no \(field)")
        }
        switch method {
        case .wechatApp:
            guard let object = json["wechat"] as? [String: String] else { throw missing("wechat") }
            self = .wechat(try WeChatPayRequest(object))
        case .wechatNative:
            guard let code = json["code_url"] as? String else { throw missing("code_url") }
            self = .wechatQRCode(code)
        case .alipayApp:
            guard let text = json["order_string"] as? String else { throw missing("order_string") }
            self = .alipayOrderString(text)
        case .alipayQR:
            guard let code = json["qr_code"] as? String else { throw missing("qr_code") }
            self = .alipayQRCode(code)
        case .wechatH5, .alipayWap:
            guard let text = json[method == .wechatH5 ? "mweb_url" : "url"] as? String, let url = URL(string: text) else {
                throw missing(method == .wechatH5 ? "mweb_url" : "url")
            }
            self = .webPage(url)
        case .applePay:
            guard let request = json["payment_request"],
                let data = try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])
            else { throw missing("payment_request") }
            self = .applePayRequest(data)
        }
    }
}

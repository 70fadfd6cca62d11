import CashierWire
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
    /// A page to open in a browser or web view (WeChat H5, Alipay's web cashiers).
    case webPage(URL)
    /// UnionPay's `tn` and the plugin's mode, for `UPAPayPlugin` (unionpay.applepay) or
    /// `UPPaymentControl` (unionpay.app): hand it to a ``UnionPayWallet``.
    case unionpay(UnionPayPayment)

    /// What the server's answer (`PaymentStartJSON`) tells the app's wallet to do for `method`.
    /// - Throws: ``CashierClientError`` `invalid_response` when the answer lacks what `method` needs.
    init(_ start: PaymentStartJSON, method: PaymentMethod) throws {
        func missing(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the server's \(method.rawValue) parameters have no \(field)")
        }
        switch (method, start.wallet) {
        case (.wechatApp, .wechat(let fields)?): self = .wechat(try WeChatPayRequest(fields))
        case (.wechatApp, _): throw missing("wechat")
        case (.wechatNative, .wechatQRCode(let code)?): self = .wechatQRCode(code)
        case (.wechatNative, _): throw missing("code_url")
        case (.alipayApp, .alipayOrderString(let text)?): self = .alipayOrderString(text)
        case (.alipayApp, _): throw missing("order_string")
        case (.alipayQR, .alipayQRCode(let code)?): self = .alipayQRCode(code)
        case (.alipayQR, _): throw missing("qr_code")
        case (.wechatH5, .wechatH5(let text)?):
            guard let url = URL(string: text) else { throw missing("mweb_url") }
            self = .webPage(url)
        case (.wechatH5, _): throw missing("mweb_url")
        case (.alipayWap, .alipayPage(let text, _)?), (.alipayPage, .alipayPage(let text, _)?):
            guard let url = URL(string: text) else { throw missing("url") }
            self = .webPage(url)
        case (.alipayWap, _), (.alipayPage, _): throw missing("url")
        case (.applePay, .applePayRequest(let request)?): self = .applePayRequest(request.sortedData)
        case (.applePay, _): throw missing("payment_request")
        case (.unionpayApplePay, .unionpay(let tn, let mode)?), (.unionpayApp, .unionpay(let tn, let mode)?):
            let trimmed = tn.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber),
                let mode = UnionPayPayment.Mode(rawValue: mode)
            else { throw missing("unionpay.tn and unionpay.mode (00 or 01)") }
            self = .unionpay(UnionPayPayment(tn: trimmed, mode: mode))
        case (.unionpayApplePay, _), (.unionpayApp, _): throw missing("unionpay")
        case (.wechatJSAPI, _), (.wechatMiniProgram, _), (.wechatBarcode, _), (.alipayBarcode, _):
            throw Self.notFromTheApp(method)
        }
    }

    /// `method` is not one an app starts: WeChat's browser and mini programs pay through their own
    /// JavaScript, and the counter methods are the merchant's till collecting a payer's code.
    static func notFromTheApp(_ method: PaymentMethod) -> CashierClientError {
        CashierClientError(
            code: "invalid_request",
            message: "\(method.rawValue) is not started from an app (it is paid in WeChat's browser or a mini program, "
                + "or collected at the counter): use wechat.app, wechat.native, wechat.h5, alipay.app, alipay.qr, "
                + "alipay.wap, alipay.page, applepay, unionpay.applepay or unionpay.app")
    }
}

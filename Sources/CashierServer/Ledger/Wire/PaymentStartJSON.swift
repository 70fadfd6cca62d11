import Cashier
import CashierStore
import Foundation

/// The answer to `POST /v1/orders/{id}/payments`: the attempt and what the app hands its wallet
/// (one of the optional fields, by method).
struct PaymentStartJSON: Encodable, Sendable {
    let method: String
    let payment_id: String
    let out_trade_no: String
    /// wechat.*: the API generation used, `v2` or `v3`.
    let api: String?
    /// wechat.native: the QR code's text.
    let code_url: String?
    /// wechat.h5: the page to open in the phone's browser.
    let mweb_url: String?
    /// wechat.app / wechat.jsapi / wechat.miniprogram: the signed parameters for the SDK.
    let wechat: [String: String]?
    /// alipay.wap / alipay.page: the gateway address, and an HTML form that posts the signed request to it.
    let url: String?
    let form: String?
    /// alipay.app: the signed order string for the SDK.
    let order_string: String?
    /// alipay.qr: the QR code's text.
    let qr_code: String?
    /// applepay: the payment request for `PKPaymentRequest` / `ApplePaySession`.
    let payment_request: JSONValue?
    /// wechat.barcode / alipay.barcode: `paid`, or `pending` while the payer confirms on the
    /// phone (HTTP 202: the server keeps asking; read the order for the outcome).
    var status: String? = nil
    /// wechat.barcode / alipay.barcode, once paid: the provider's transaction id.
    var transaction_id: String? = nil

    /// From what the adapter placed (`parameters`) and the attempt.
    init(method: PaymentMethod, paymentID: String, outTradeNo: String, api: String?, parameters: [String: Any]) {
        self.method = method.rawValue
        payment_id = paymentID
        out_trade_no = outTradeNo
        self.api = api
        code_url = parameters["code_url"] as? String
        mweb_url = parameters["mweb_url"] as? String
        wechat = parameters["wechat"] as? [String: String]
        url = parameters["url"] as? String
        form = parameters["form"] as? String
        order_string = parameters["order_string"] as? String
        qr_code = parameters["qr_code"] as? String
        payment_request = parameters["payment_request"].map(JSONValue.init)
    }

    /// A counter payment's answer.
    init(counter payment: StoredPayment, status: String, api: String?) {
        self.init(method: payment.method, paymentID: payment.id, outTradeNo: payment.outTradeNo, api: api, parameters: [:])
        self.status = status
        transaction_id = status == "paid" ? payment.transactionID : nil
    }
}

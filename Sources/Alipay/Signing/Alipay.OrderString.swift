import Cashier
import CashierCrypto
public import Foundation

extension Alipay {
    /// The signed order string the app hands to the Alipay SDK (`alipay.trade.app.pay`).
    ///
    /// Common parameters plus `biz_content` are signed as raw values (keeping `sign_type`), then
    /// every value is URL-encoded and the signature appended. The private key stays on the server.
    ///
    /// ```swift
    /// let orderString = try Alipay.OrderString.make(appID: "2021000000000000", signer: signer, notifyURL: notifyURL,
    ///                                               bizContent: #"{"out_trade_no":"C2026…","total_amount":"51.00","subject":"2 lattes"}"#)
    /// ```
    public enum OrderString {
        /// The common parameters of a request, as Alipay names them.
        ///
        /// `certificates` adds `app_cert_sn` and `alipay_root_cert_sn`; `appAuthToken` is the
        /// merchant's authorisation when a service provider (ISV) calls on its behalf.
        public static func commonParameters(
            appID: String, method: String, notifyURL: String?, bizContent: String, timestamp: Date, signType: SignType,
            certificates: CertificateMode? = nil, appAuthToken: String? = nil
        ) -> [String: String] {
            var parameters = [
                "app_id": appID, "method": method, "format": "JSON", "charset": "utf-8", "sign_type": signType.rawValue,
                "timestamp": BeijingTime.string(from: timestamp, .dateTime), "version": "1.0", "biz_content": bizContent,
            ]
            if let notifyURL { parameters["notify_url"] = notifyURL }
            if let appAuthToken { parameters["app_auth_token"] = appAuthToken }
            if let certificates { parameters.merge(certificates.parameters) { _, new in new } }
            return parameters
        }

        /// A signed, URL-encoded order string for `alipay.trade.app.pay`.
        public static func make(
            appID: String, signer: Signer, notifyURL: String, bizContent: String, timestamp: Date = Date(), signType: SignType = .rsa2,
            certificates: CertificateMode? = nil, appAuthToken: String? = nil
        ) throws -> String {
            var parameters = commonParameters(
                appID: appID, method: "alipay.trade.app.pay", notifyURL: notifyURL, bizContent: bizContent, timestamp: timestamp,
                signType: signType, certificates: certificates, appAuthToken: appAuthToken)
            parameters["sign"] = try signer.signature(for: parameters, type: signType)
            let order = [
                "alipay_root_cert_sn", "app_auth_token", "app_cert_sn", "app_id", "biz_content", "charset", "format", "method",
                "notify_url", "sign_type",
                "timestamp", "version", "sign",
            ]
            return order.compactMap { name in parameters[name].map { (name, $0) } }.map { "\($0.0)=\(FormBody.escape($0.1))" }.joined(
                separator: "&")
        }
    }
}

public import CashierWire
public import Foundation

/// What WeChat's confirmation of a merchant transfer (商家转账) takes: `mchId`, `appId` and
/// `package`. A transfer the app's backend made with `POST /v1/transfers` waits for its payee
/// (`waiting_for_payee`) with a `package_info`; the app hands these three to WeChat, which asks
/// the payee to confirm. Only Cashier's answer (the transfer's status, or its webhook) says the
/// money moved: WeChat's callback means the page was shown, no more.
///
/// ```swift
/// let request = try MerchantTransferRequest(transferJSON: bodyFromYourBackend)
/// // Mini program: wx.requestMerchantTransfer({ mchId, appId, package })
/// // iOS OpenSDK: WXOpenBusinessViewReq with businessType and query
/// let open = WXOpenBusinessViewReq()
/// open.businessType = MerchantTransferRequest.businessType
/// open.query = request.query
/// ```
public struct MerchantTransferRequest: Sendable, Equatable, Codable {
    /// The OpenSDK's `WXOpenBusinessViewReq.businessType` for a transfer's confirmation.
    public static let businessType = "requestMerchantTransfer"

    /// The merchant that pays (`mch_id` of the transfer).
    public let mchId: String
    /// The app the payee's openid belongs to (`app_id` of the transfer).
    public let appId: String
    /// The transfer's `package_info`.
    public let package: String

    public init(mchId: String, appId: String, package: String) {
        self.mchId = mchId
        self.appId = appId
        self.package = package
    }

    /// The confirmation of a transfer as Cashier answers it.
    /// - Throws: ``CashierClientError`` `transfer_not_waiting` unless it waits for its payee with a package.
    public init(transfer: TransferJSON) throws {
        guard transfer.status == "waiting_for_payee", let package = transfer.package_info, !package.isEmpty,
            let mchId = transfer.mch_id, !mchId.isEmpty
        else {
            throw CashierClientError(
                code: "transfer_not_waiting",
                message: "transfer \(transfer.id) is \(transfer.status), not waiting for its payee with a package_info")
        }
        self.init(mchId: mchId, appId: transfer.app_id, package: package)
    }

    /// The confirmation of a transfer from its JSON (`GET /v1/transfers/{id}`'s answer, as the
    /// app's backend passed it on).
    /// - Throws: ``CashierClientError`` `invalid_response` for JSON that is not a transfer; `transfer_not_waiting`.
    public init(transferJSON: Data) throws {
        let transfer: TransferJSON
        do {
            transfer = try JSONDecoder().decode(TransferJSON.self, from: transferJSON)
        } catch {
            throw CashierClientError(code: "invalid_response", message: "the JSON is not a Cashier transfer")
        }
        try self.init(transfer: transfer)
    }

    /// `mchId=…&appId=…&package=…`, percent-encoded: the OpenSDK's `WXOpenBusinessViewReq.query`.
    public var query: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func encoded(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value }
        return "mchId=\(encoded(mchId))&appId=\(encoded(appId))&package=\(encoded(package))"
    }
}

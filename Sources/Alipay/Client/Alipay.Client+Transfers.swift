public import Cashier
import Foundation

/// Transfers to Alipay accounts (单笔转账): `alipay.fund.trans.uni.transfer` and
/// `alipay.fund.trans.common.query`, product `TRANS_ACCOUNT_NO_PWD`, scene `DIRECT_TRANSFER`.
/// Production requires certificate mode (a key-mode app gets `isv.missing-app-cert-sn`); the
/// sandbox takes both.
extension Alipay.Client {
    /// Who receives a transfer: an Alipay account and how it is named.
    public struct Payee: Sendable, Equatable {
        /// `identity`.
        public let identity: String
        /// `identity_type`: `ALIPAY_USER_ID` (2088…), `ALIPAY_OPEN_ID` or `ALIPAY_LOGON_ID` (then `name` is required).
        public let identityType: String
        /// The account holder's real name (`name`).
        public let name: String?

        public init(identity: String, identityType: String = "ALIPAY_USER_ID", name: String? = nil) {
            self.identity = identity
            self.identityType = identityType
            self.name = name
        }
    }

    /// Transfers `amount` to `payee` (`alipay.fund.trans.uni.transfer`). Sent again with the same
    /// `outBizNo`, Alipay answers the same transfer.
    /// - Parameters:
    ///   - outBizNo: the merchant's number, at most 64 letters, digits and `_`.
    ///   - amount: CNY, at least 0.10.
    ///   - payee: the Alipay account that receives it.
    ///   - title: `order_title`, what the payee sees.
    ///   - remark: `remark`.
    /// - Returns: the transfer, usually `SUCCESS` at once.
    /// - Throws: `PaymentError.invalidRequest` before sending; `.providerRejected` with Alipay's `sub_code`.
    public func uniTransfer(outBizNo: String, amount: Money, payee: Payee, title: String, remark: String? = nil) async throws
        -> Alipay.FundTransfer
    {
        guard !outBizNo.isEmpty, outBizNo.utf8.count <= 64,
            outBizNo.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 })
        else { throw PaymentError(.invalidRequest, provider: .alipay, "out_biz_no must be 1 to 64 letters, digits and _") }
        guard amount.currency == .cny, amount.minorUnits >= 10 else {
            throw PaymentError(.invalidRequest, provider: .alipay, "an Alipay transfer is at least 0.10 CNY")
        }
        guard payee.identityType != "ALIPAY_LOGON_ID" || payee.name?.isEmpty == false else {
            throw PaymentError(.invalidRequest, provider: .alipay, "a transfer to a logon id needs the payee's name")
        }
        var payeeInfo: [String: Any] = ["identity": payee.identity, "identity_type": payee.identityType]
        if let name = payee.name { payeeInfo["name"] = name }
        var biz: [String: Any] = [
            "out_biz_no": outBizNo, "trans_amount": amount.decimalString, "product_code": "TRANS_ACCOUNT_NO_PWD",
            "biz_scene": "DIRECT_TRANSFER", "order_title": title, "payee_info": payeeInfo,
        ]
        if let remark { biz["remark"] = remark }
        return try Alipay.FundTransfer(node: try await call("alipay.fund.trans.uni.transfer", biz: biz), outBizNo: outBizNo)
    }

    /// Where a transfer stands (`alipay.fund.trans.common.query`).
    /// - Throws: `.providerRejected` with `ORDER_NOT_EXIST` for a transfer Alipay does not have.
    public func transferQuery(outBizNo: String) async throws -> Alipay.FundTransfer {
        let node = try await call(
            "alipay.fund.trans.common.query",
            biz: ["out_biz_no": outBizNo, "product_code": "TRANS_ACCOUNT_NO_PWD", "biz_scene": "DIRECT_TRANSFER"])
        return try Alipay.FundTransfer(node: node, outBizNo: outBizNo)
    }
}

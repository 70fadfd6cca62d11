import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay's withholding (委托代扣, `papay`) through the v2 APIs, for the direct merchant: the
/// payer signs a contract of the agreement's template (`plan_id`) under the agreement's number
/// (`contract_code`) — the app by `preentrustweb`, the official account by the `entrustweb` page,
/// H5 by the page `h5entrustweb` answers — and each charge is a `pay/pappayapply` deduction that
/// WeChat Pay only accepts; its result comes as the ordinary payment notification (`trade_type`
/// `PAP`) or by query (`ACCEPT`, then `SUCCESS` or `PAY_FAIL`).
extension WeChatV2Adapter: Recurring {
    var recurringMerchantID: String { configuration.merchant.mchID }

    /// A service provider's sub-merchants sign through the partner APIs (`papay/partner/*`), which Cashier does not call.
    var signingMethods: Set<PaymentMethod> { subMerchant == nil ? [.wechatApp, .wechatJSAPI, .wechatH5] : [] }

    /// The address `spbill_create_ip` and H5's `clientip` name when the payer's is not known.
    static let serverIP = "127.0.0.1"

    func signAgreement(_ agreement: StoredAgreement, notifyURL: String, returnURL: String?) async throws -> AgreementLaunch {
        let method = PaymentMethod(rawValue: agreement.method)
        guard let method, signingMethods.contains(method) else {
            throw PaymentError(
                .invalidRequest, provider: .wechatV2, "WeChat Pay withholding is signed with wechat.app, wechat.jsapi or wechat.h5")
        }
        let now = clock.now()
        // Unique per request, and ordered: milliseconds, and three random digits for two in the same one.
        let serial = Int64(now.timeIntervalSince1970 * 1000) * 1000 + Int64.random(in: 0..<1000)
        let request = WeChatPay.V2.EntrustRequest(
            planID: try planID(agreement), contractCode: agreement.externalNo, requestSerial: serial, displayAccount: agreement.description,
            notifyURL: notifyURL)
        let client = contractClient(agreement)
        switch method {
        case .wechatApp: return .wechatPreEntrust(try await client.preEntrust(request, timestamp: now))
        case .wechatH5: return .url(try await client.h5Entrust(request, clientIP: Self.serverIP, timestamp: now))
        default: return .url(client.entrustWebURL(request, timestamp: now).absoluteString)
        }
    }

    func agreementProgress(_ agreement: StoredAgreement) async throws -> AgreementProgress? {
        do {
            let contract = try await contractClient(agreement).queryContract(
                .code(planID: try planID(agreement), contractCode: agreement.externalNo))
            return Self.progress(contract)
        } catch let error as PaymentError where error.providerCode == "CONTRACT_NOT_EXIST" {
            return nil  // not signed (yet)
        }
    }

    func terminateAgreement(_ agreement: StoredAgreement, remark: String) async throws -> AgreementProgress {
        let client = contractClient(agreement)
        let key = WeChatPay.V2.ContractKey.code(planID: try planID(agreement), contractCode: agreement.externalNo)
        do {
            try await client.deleteContract(key, remark: String(remark.prefix(256)))
        } catch let error as PaymentError where error.providerCode == "CONTRACT_NOT_EXIST" {
            return AgreementProgress(
                status: .terminated, providerState: "CONTRACT_NOT_EXIST", reason: "no contract was signed at WeChat Pay")
        }
        return Self.progress(try await client.queryContract(key))
    }

    func charge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, notifyURL: String) async throws
        -> ChargeAnswer
    {
        guard agreement.status == .active, let contractID = agreement.providerAgreementID else {
            return .declined(reason: "the agreement is not signed at WeChat Pay", retryable: false)
        }
        do {
            try await contractClient(agreement).papPayApply(
                .init(
                    contractID: contractID, body: order.description, outTradeNo: payment.outTradeNo, total: payment.amount,
                    clientIP: Self.serverIP, notifyURL: notifyURL, attach: OrderFieldsForProviders.metadata(order, limit: Self.attachLimit))
            )
            return .accepted
        } catch let error as PaymentError where error.code == .providerRejected && error.providerCode != nil {
            let code = error.providerCode ?? ""
            if code == "ORDERPAID" { return .accepted }  // sent before, and paid: the query says how much
            guard let retryable = Self.deductionRefusals[code] else { throw error }  // SYSTEMERROR, …: unknown, query
            return .declined(reason: "\(code): \(error.providerMessage ?? "refused")", retryable: retryable)
        }
    }

    /// `pay/pappayapply`'s refusals, and whether a later attempt may pass.
    static let deductionRefusals: [String: Bool] = [
        "CONTRACT_NOT_EXIST": false, "NOAUTH": false, "PARAM_ERROR": false, "ORDERCLOSED": false, "NOTENOUGH": true, "RULELIMIT": true,
        "FREQUENCY_LIMITED": true,
    ]

    /// Why a withholding deduction (trade type PAP) failed, from its notification.
    static func deductionFailure(_ document: WeChatPay.V2.XMLDocument) -> String {
        "PAY_FAIL: \(document["err_code_des"] ?? document["err_code"] ?? "the deduction failed")"
    }

    func agreementEvents(_ message: InboundMessage) async throws -> [AgreementReport] {
        guard WeChatPay.V2.ContractNotification.isContractNotification(message.body) else { return [] }
        let notification = try WeChatPay.V2.ContractNotification.verify(message.body, merchant: configuration.merchant)
        let progress =
            switch notification.changeType {
            case .add:
                AgreementProgress(
                    status: .active, providerState: "ADD", providerAgreementID: notification.contractID, payer: notification.openID)
            case .delete:
                AgreementProgress(
                    status: .terminated, providerState: "DELETE", providerAgreementID: notification.contractID, payer: notification.openID,
                    reason: notification.terminationMode?.summary ?? "terminated")
            }
        return [
            AgreementReport(
                provider: .wechatV2, merchantID: notification.mchID, externalNo: notification.contractCode, progress: progress,
                notificationID: "\(notification.contractID):\(notification.changeType.rawValue):\(notification.operateTime)")
        ]
    }

    /// Cashier's word for a contract's state.
    static func progress(_ contract: WeChatPay.V2.Contract) -> AgreementProgress {
        switch contract.state {
        case .signed:
            AgreementProgress(status: .active, providerState: "0", providerAgreementID: contract.contractID, payer: contract.openID)
        case .terminated:
            AgreementProgress(
                status: .terminated, providerState: "1", providerAgreementID: contract.contractID, payer: contract.openID,
                reason: contract.terminationMode?.summary ?? "terminated")
        }
    }

    /// The client for the appid the contract is signed under: the official account's for
    /// `wechat.jsapi` (when one is configured), the merchant's app's otherwise.
    func contractClient(_ agreement: StoredAgreement) -> WeChatPay.V2.Client {
        client(appID: agreement.method == PaymentMethod.wechatJSAPI.rawValue ? payer.officialAccountID : nil)
    }

    func planID(_ agreement: StoredAgreement) throws -> String {
        guard let planID = agreement.planID, !planID.isEmpty else {
            throw PaymentError(.invalidRequest, provider: .wechatV2, "a WeChat Pay agreement needs its contract template (plan_id)")
        }
        return planID
    }
}

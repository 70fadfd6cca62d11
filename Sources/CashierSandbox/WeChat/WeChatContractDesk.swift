import Foundation
import WeChatPay

/// What the v2 sandbox keeps of withholding (委托代扣, `papay`): the signing requests the
/// merchant made (from the `entrustweb`/`h5entrustweb` address the payer opened or the
/// `preentrustweb` call), the contracts the payers signed, the deductions accepted and not yet
/// settled, and the clock and delay they settle by. Held by ``WeChatV2Sandbox``; the rules live in
/// ``WeChatV2Sandbox`` `+Papay`.
struct WeChatContractDesk: Sendable {
    /// A signing request, waiting for the payer.
    struct Signing: Sendable {
        let mchID: String
        let appID: String
        let planID: String
        let contractCode: String
        let requestSerial: String
        let displayAccount: String
        let notifyURL: String
        /// What the request was signed with: the notifications are signed the same way.
        let signType: WeChatPay.V2.SignType
    }

    /// A signed contract, and how it ended.
    struct Contract: Sendable {
        let signing: Signing
        let contractID: String
        let openID: String
        let signedAt: Date
        let expiresAt: Date
        var terminatedAt: Date?
        /// `contract_termination_mode` once it ended: 2 the payer, 3 the merchant's API.
        var terminationMode: String?
        var remark: String?
        /// How many of the payer's next deductions fail for want of balance.
        var failingDeductions = 0

        /// `contract_state`: `0` signed, `1` terminated.
        var state: String { terminatedAt == nil ? "0" : "1" }
    }

    /// An accepted deduction, settling at `settlesAt` on the desk's clock.
    struct Deduction: Sendable {
        let contractID: String
        let settlesAt: Date
        /// Settles `PAY_FAIL` (the payer's balance is short).
        let fails: Bool
    }

    /// How long a contract lasts once signed (the template's validity; three years here).
    static let validity: TimeInterval = 3 * 365 * 24 * 3600

    /// Signing requests by ``key(_:_:_:)``.
    var signings: [String: Signing] = [:]
    /// The notify URL of each merchant's latest signing request, by `mch_id`: where a payer's
    /// signature of a request the sandbox never saw (an `entrustweb` address built, not opened) is told.
    var lastNotifyURLs: [String: String] = [:]
    /// The merchant such a signature is for when the sandbox knows several (`mch_id`).
    var defaultMerchant: String?
    /// Contracts by `contract_id`.
    var contracts: [String: Contract] = [:]
    /// Deductions accepted and not yet settled, by `out_trade_no`.
    var deductions: [String: Deduction] = [:]
    /// The sandbox clock for papay: signing and termination times, when deductions settle.
    var clock: @Sendable () -> Date = { Date() }
    /// How long after its acceptance (by ``clock``) a deduction settles.
    var deductionDelay: TimeInterval = 5

    static func key(_ mchID: String, _ planID: String, _ contractCode: String) -> String { mchID + "/" + planID + "/" + contractCode }

    /// The newest contract of a merchant's template under the merchant's number.
    func contract(mchID: String, planID: String, contractCode: String) -> Contract? {
        contracts.values.filter { $0.signing.mchID == mchID && $0.signing.planID == planID && $0.signing.contractCode == contractCode }
            .max { $0.signedAt < $1.signedAt }
    }

    /// The signed (not terminated) contract under a merchant's number, whoever the merchant.
    func signedContract(planID: String, contractCode: String) -> Contract? {
        contracts.values.first { $0.signing.planID == planID && $0.signing.contractCode == contractCode && $0.terminatedAt == nil }
    }
}

/// A withholding contract as the sandbox holds it: what the payer API answers and tests read.
public struct SandboxContract: Sendable, Codable, Equatable {
    public let mch_id: String
    public let appid: String
    public let plan_id: String
    public let contract_code: String
    public let contract_id: String
    public let openid: String
    /// `0` signed, `1` terminated.
    public let contract_state: String
    public let contract_termination_mode: String?
    public let contract_display_account: String
}

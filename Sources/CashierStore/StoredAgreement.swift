public import Cashier
public import Foundation

/// A payer's standing permission for the merchant to charge them later without them present
/// (WeChat Pay's 委托代扣 contract, Alipay's 周期扣款 agreement, a payment method an Apple Pay
/// processor stored on a first customer-initiated payment). Reserved here under its
/// `external_no` before the payer is sent to sign, then moved by the provider's word
/// (notifications, queries) by compare-and-set; `terminated` and `failed` never change.
public struct StoredAgreement: Sendable, Equatable {
    /// Where an agreement stands.
    public enum Status: String, Sendable, CaseIterable, Codable {
        /// Reserved; the payer has not (yet) signed.
        case pending
        /// Signed: charges may be made under it.
        case active
        /// Ended (by the payer in their wallet, by the merchant, or expired): no charge is made under it again.
        case terminated
        /// The payer refused or the signing failed; it was never active.
        case failed

        /// `terminated` or `failed`: nothing moves it again.
        public var isFinal: Bool { self == .terminated || self == .failed }
    }

    /// The unit of an agreement's or a subscription's period.
    public enum PeriodUnit: String, Sendable, CaseIterable, Codable {
        case day, week, month, year
    }

    public let id: String
    /// The sub-merchant whose key made it; `nil` for the platform's.
    public let merchant: String?
    /// `wechat.v2`, `alipay`, `applepay`.
    public let provider: String
    /// How the payer signs (`wechat.app`, `wechat.jsapi`, `wechat.h5`, `alipay.app`, `alipay.page`, `applepay`).
    public let method: String
    /// The merchant's number for the agreement at the provider (WeChat's `contract_code`, Alipay's
    /// `external_agreement_no`, the processor's shopper reference): one agreement, however often sent.
    public let externalNo: String
    /// The provider's number once signed (WeChat's `contract_id`, Alipay's `agreement_no`, the
    /// processor's stored payment method).
    public let providerAgreementID: String?
    /// The payer at the provider (an openid, an Alipay user id, a processor's customer), once known.
    public let payer: String?
    /// WeChat Pay's template (`plan_id`); `nil` elsewhere.
    public let planID: String?
    /// What the payer sees the agreement as (`contract_display_account`, the sheet's description).
    public let description: String
    /// The agreement's period: charges at most once per `periodCount` `periodUnit`s.
    public let periodUnit: PeriodUnit
    public let periodCount: Int
    /// The most one charge may take (and its currency).
    public let singleLimit: Money
    /// The first charge's day (Alipay's `execute_time`), when the provider keeps a schedule.
    public let firstChargeAt: Date?
    public let status: Status
    /// The provider's own word for it (`0`/`1` WeChat contract_state, `NORMAL`, `STOP`, …).
    public let providerState: String?
    /// Why it ended or failed (WeChat's termination mode, the processor's decline).
    public let endReason: String?
    public let version: Int64
    public let createdAt: Date
    public let updatedAt: Date
    public let activatedAt: Date?
    public let endedAt: Date?

    public init(
        id: String, merchant: String?, provider: String, method: String, externalNo: String, providerAgreementID: String?, payer: String?,
        planID: String?, description: String, periodUnit: PeriodUnit, periodCount: Int, singleLimit: Money, firstChargeAt: Date?,
        status: Status, providerState: String?, endReason: String?, version: Int64, createdAt: Date, updatedAt: Date, activatedAt: Date?,
        endedAt: Date?
    ) {
        self.id = id
        self.merchant = merchant
        self.provider = provider
        self.method = method
        self.externalNo = externalNo
        self.providerAgreementID = providerAgreementID
        self.payer = payer
        self.planID = planID
        self.description = description
        self.periodUnit = periodUnit
        self.periodCount = periodCount
        self.singleLimit = singleLimit
        self.firstChargeAt = firstChargeAt
        self.status = status
        self.providerState = providerState
        self.endReason = endReason
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.activatedAt = activatedAt
        self.endedAt = endedAt
    }
}

/// What the provider says of an agreement now (``RecurringRecords/moveAgreement(_:to:now:)``).
public struct AgreementProgress: Sendable, Equatable {
    public let status: StoredAgreement.Status
    /// The provider's own word (`0`, `NORMAL`, `STOP`, `ADD`, `DELETE`, `succeeded`…).
    public let providerState: String
    /// The provider's number for it, once signed.
    public let providerAgreementID: String?
    /// The payer the provider names, once signed.
    public let payer: String?
    /// Why it ended or failed.
    public let reason: String?

    public init(
        status: StoredAgreement.Status, providerState: String, providerAgreementID: String? = nil, payer: String? = nil,
        reason: String? = nil
    ) {
        self.status = status
        self.providerState = providerState
        self.providerAgreementID = providerAgreementID
        self.payer = payer
        self.reason = reason
    }
}

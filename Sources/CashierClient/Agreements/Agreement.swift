import CashierWire
public import Foundation

/// A payer's standing permission to be charged later — WeChat Pay's 委托代扣 contract, Alipay's
/// 周期扣款 agreement, an Apple Pay processor's stored card — as the server describes it
/// (`AgreementJSON`).
///
/// The app never creates one: that takes the secret key. Your backend calls
/// `POST /v1/agreements` and hands the answer to the app, which reads it and opens its
/// ``launch`` with an ``AgreementLauncher``:
///
/// ```swift
/// let agreement = try Agreement(json: answerFromYourBackend)
/// let result = try await flow.sign(agreement, launcher: WeChatAgreementLauncher())
/// if case .active = result { showSubscribed() }
/// ```
public struct Agreement: Sendable, Equatable {
    /// Where an agreement stands, in the server's words.
    public enum Status: String, Sendable {
        /// Created; the payer has not signed (or the provider has not said so yet).
        case pending
        /// Signed: the merchant may charge under it.
        case active
        /// Ended by the payer, the merchant or the provider.
        case terminated
        /// Never signed: refused or expired.
        case failed
        /// A status this SDK does not know.
        case unknown

        /// `true` once it can change no more by the payer signing: active, terminated or failed.
        public var isSettled: Bool { self == .active || self == .terminated || self == .failed }
    }

    /// How often it may be charged: at most once every `count` `unit`s.
    public struct Period: Sendable, Equatable {
        /// The unit of a period.
        public enum Unit: String, Sendable {
            /// A day.
            case day
            /// A week.
            case week
            /// A month.
            case month
            /// A year.
            case year
            /// A unit this SDK does not know.
            case unknown
        }

        /// The unit.
        public let unit: Unit
        /// How many units make one period.
        public let count: Int
    }

    /// `agr_…`.
    public let id: String
    /// `wechat.v2`, `alipay`, `applepay`.
    public let provider: String
    /// How the payer signs (`wechat.app`, `alipay.app`, `applepay`, …).
    public let method: String
    /// Where it stands.
    public let status: Status
    /// The merchant's number for it at the provider (`contract_code`, `external_agreement_no`).
    public let externalNo: String
    /// The provider's number once signed (`contract_id`, `agreement_no`, the stored method).
    public let providerAgreementID: String?
    /// What the payer sees it as.
    public let description: String
    /// At most one charge per period.
    public let period: Period
    /// The most one charge may take, for display (`"30.00"`).
    public let singleLimit: String
    /// The most one charge may take, in minor units.
    public let singleLimitMinor: Int64
    /// ISO 4217 code of ``singleLimit``.
    public let currency: String
    /// Why it ended or failed.
    public let endReason: String?
    /// What the app opens to sign it: only in the answer to its creation, while pending.
    public let launch: AgreementLaunch?
    /// When it was created.
    public let created: Date

    /// Reads the server's agreement, as your backend passes it on.
    /// - Parameter json: the body of `POST /v1/agreements` or `GET /v1/agreements/{id}`.
    /// - Throws: ``CashierClientError`` `invalid_response` when it is not an agreement, or its
    ///   launch lacks what its kind needs.
    public init(json: Data) throws {
        self = try CashierClient.decode(Agreement.self, from: json, "agreement")
    }

    /// The agreement as `AgreementJSON` carries it.
    init(_ json: AgreementJSON) throws {
        id = json.id
        provider = json.provider
        method = json.method
        status = Status(rawValue: json.status) ?? .unknown
        externalNo = json.external_no
        providerAgreementID = json.provider_agreement_id
        description = json.description
        period = Period(unit: Period.Unit(rawValue: json.period.unit) ?? .unknown, count: json.period.count)
        singleLimit = json.single_limit.amount
        singleLimitMinor = json.single_limit.amount_minor
        currency = json.single_limit.currency
        endReason = json.end_reason
        launch = try json.launch.map(AgreementLaunch.init)
        created = Date(timeIntervalSince1970: TimeInterval(json.created))
    }
}

extension Agreement: Decodable {
    /// Reads the server's agreement (`AgreementJSON`) where it is part of a larger answer.
    /// - Parameter decoder: the decoder positioned at the agreement object.
    public init(from decoder: any Decoder) throws {
        try self.init(AgreementJSON(from: decoder))
    }
}

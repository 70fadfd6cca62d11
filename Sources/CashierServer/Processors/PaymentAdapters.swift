import Cashier
import CashierStore
import Foundation

/// The configured providers' adapters, one per provider and API generation.
struct PaymentAdapters: Sendable {
    private let byProvider: [PaymentProvider: any PaymentAdapter]
    /// The WeChat Pay API used when a payment request names none.
    private let defaultWeChatAPI: PaymentProvider?
    /// Each sub-merchant's adapters (through the service provider / ISV), by the merchant's id.
    private let partners: [String: [PaymentProvider: any PaymentAdapter]]
    /// The same, by the provider's own name for the sub-merchant (a payment's ``StoredPayment/merchantID``).
    private let partnersByProviderID: [PaymentProvider: [String: any PaymentAdapter]]

    /// - Parameter partners: each sub-merchant's adapters, with the provider's name for it
    ///   (`sub_mch_id`, the Alipay app id) that its payments record.
    init(
        _ adapters: [any PaymentAdapter], defaultWeChatAPI: MerchantConfiguration.WeChatAPI?,
        partners: [(merchant: String, providerID: String, adapter: any PaymentAdapter)] = []
    ) {
        byProvider = Dictionary(adapters.map { ($0.provider, $0) }, uniquingKeysWith: { first, _ in first })
        var byMerchant: [String: [PaymentProvider: any PaymentAdapter]] = [:]
        var byProviderID: [PaymentProvider: [String: any PaymentAdapter]] = [:]
        for partner in partners {
            byMerchant[partner.merchant, default: [:]][partner.adapter.provider] = partner.adapter
            byProviderID[partner.adapter.provider, default: [:]][partner.providerID] = partner.adapter
        }
        self.partners = byMerchant
        partnersByProviderID = byProviderID
        let preferred: PaymentProvider? = defaultWeChatAPI.map { $0 == .v2 ? .wechatV2 : .wechatV3 }
        self.defaultWeChatAPI = preferred ?? (byProvider[.wechatV2] != nil ? .wechatV2 : .wechatV3)
    }

    /// The adapter for a provider a payment was placed with.
    /// - Throws: `PaymentError.invalidRequest` when that provider is no longer configured.
    func adapter(for provider: PaymentProvider) throws -> any PaymentAdapter {
        guard let adapter = byProvider[provider] else {
            throw PaymentError(.invalidConfiguration, provider: provider, "\(provider.rawValue) is not configured on this server")
        }
        return adapter
    }

    /// The adapter a payment was placed with: its sub-merchant's (by the provider's name for it),
    /// or the direct merchant's.
    func adapter(for payment: StoredPayment) throws -> any PaymentAdapter {
        if let id = payment.merchantID, let partner = partnersByProviderID[payment.provider]?[id] { return partner }
        return try adapter(for: payment.provider)
    }

    /// A sub-merchant's adapter for `provider`, for its notifications.
    func adapter(for provider: PaymentProvider, merchant: String) -> (any PaymentAdapter)? {
        partners[merchant]?[provider]
    }

    /// The adapter that places `method`, with WeChat Pay's `api` (`v2`, `v3`, or the default),
    /// for the direct merchant or a sub-merchant (`merchant`, its id).
    /// - Throws: `PaymentError.invalidRequest` saying what is not configured or not allowed.
    func adapter(for method: PaymentMethod, api: String?, merchant: String? = nil) throws -> any PaymentAdapter {
        let provider: PaymentProvider
        switch method.wallet {
        case .wechat where method == .wechatBarcode:
            guard api == nil || api == "v2" else {
                throw PaymentError(
                    .invalidRequest,
                    "wechat.barcode goes through WeChat Pay API v2 (pay/micropay): v3 has no payment-code API for merchants")
            }
            provider = .wechatV2
        case .wechat:
            switch api {
            case nil: provider = defaultWeChatAPI ?? .wechatV2
            case "v2": provider = .wechatV2
            case "v3": provider = .wechatV3
            case let other?: throw RequestProblem("api '\(other)' is not v2 or v3")
            }
        case .alipay:
            guard api == nil else { throw PaymentError(.invalidRequest, "api applies to WeChat Pay methods only") }
            provider = .alipay
        case .applePay:
            guard api == nil else { throw PaymentError(.invalidRequest, "api applies to WeChat Pay methods only") }
            provider = .applePay
        case .unionpay:
            guard api == nil else { throw PaymentError(.invalidRequest, "api applies to WeChat Pay methods only") }
            provider = .unionpay
        }
        let candidates = merchant.map { partners[$0] ?? [:] } ?? byProvider
        guard let adapter = candidates[provider], adapter.methods.contains(method) else {
            let name =
                switch provider {
                case .wechatV2: "WeChat Pay API v2"
                case .wechatV3: "WeChat Pay API v3"
                case .alipay: "Alipay"
                case .applePay: "Apple Pay"
                case .unionpay: "UnionPay (the unionpay section)"
                }
            throw PaymentError(
                .invalidRequest,
                merchant.map {
                    "\(name) is not configured for merchant \($0) (its sub_mch_id / app_auth_token, and the service provider's credentials)"
                }
                    ?? "\(name) is not configured on this server")
        }
        return adapter
    }

    /// The adapter a payment was placed with, as a refunding one.
    /// - Throws: 409 `unsupported` when its provider does not refund through Cashier.
    func refunding(for payment: StoredPayment) throws -> any Refunding {
        guard let refunding = try adapter(for: payment) as? any Refunding else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "\(payment.provider.rawValue) payments are refunded through your payment processor")
        }
        return refunding
    }

    /// The processor holding a payment's authorisation, when its provider captures (Apple Pay).
    func capturing(for payment: StoredPayment) -> (any Capturing)? {
        (try? adapter(for: payment)) as? any Capturing
    }

    /// The direct merchant's card processor (Apple Pay), if configured.
    func capturing() -> (any Capturing)? {
        byProvider[.applePay] as? any Capturing
    }

    /// The Apple Pay adapter, if Apple Pay is configured.
    var applePay: ApplePayAdapter? { byProvider[.applePay] as? ApplePayAdapter }

    /// Every configured adapter whose bills reconciliation reads.
    var reconciling: [any Reconciling] { all.compactMap { $0 as? any Reconciling } }

    /// Every configured adapter with keys to look after.
    var keyMaintaining: [any KeyMaintaining] { all.compactMap { $0 as? any KeyMaintaining } }

    /// Every configured adapter where payers' complaints are answered (WeChat Pay v3), the direct merchant's first.
    var complaintHandling: [any ComplaintHandling] { all.compactMap { $0 as? any ComplaintHandling } }

    /// The adapter that answers complaints at `provider` about merchant `merchantID` (`complainted_mchid`).
    func complaintHandling(provider: String, merchantID: String) -> (any ComplaintHandling)? {
        complaintHandling.first { $0.provider.rawValue == provider && $0.complaintMerchantID == merchantID }
    }

    /// The adapter WeChat Pay transfers go through: the direct merchant's v3, when configured.
    var transferring: (any Transferring)? { byProvider[.wechatV3] as? any Transferring }

    /// The direct merchant's adapter transfers out go through at `provider` (`wechat.v3`, `alipay`), when configured.
    func transferring(_ provider: PaymentProvider) -> (any Transferring)? { byProvider[provider] as? any Transferring }

    /// The direct merchant's adapter profit sharing goes through at `provider` (`wechat.v3`, `alipay`), when configured.
    func splitting(_ provider: PaymentProvider) -> (any Splitting)? { byProvider[provider] as? any Splitting }

    /// The direct merchant's adapter agreements and their charges go through at `provider`
    /// (`wechat.v2`, `alipay`, `applepay`), when configured.
    func recurring(_ provider: PaymentProvider) -> (any Recurring)? { byProvider[provider] as? any Recurring }

    /// Every configured adapter: the direct merchant's, then each sub-merchant's.
    var all: [any PaymentAdapter] {
        byProvider.values.sorted { $0.provider.rawValue < $1.provider.rawValue }
            + partners.sorted { $0.key < $1.key }.flatMap { $0.value.values.sorted { $0.provider.rawValue < $1.provider.rawValue } }
    }
}

import Cashier
import Foundation

/// The configured providers' adapters, one per provider and API generation.
struct PaymentAdapters: Sendable {
    private let byProvider: [PaymentProvider: any PaymentAdapter]
    /// The WeChat Pay API used when a payment request names none.
    private let defaultWeChatAPI: PaymentProvider?

    init(_ adapters: [any PaymentAdapter], defaultWeChatAPI: MerchantConfiguration.WeChatAPI?) {
        byProvider = Dictionary(adapters.map { ($0.provider, $0) }, uniquingKeysWith: { first, _ in first })
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

    /// The adapter that places `method`, with WeChat Pay's `api` (`v2`, `v3`, or the default).
    /// - Throws: `PaymentError.invalidRequest` saying what is not configured or not allowed.
    func adapter(for method: PaymentMethod, api: String?) throws -> any PaymentAdapter {
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
        }
        guard let adapter = byProvider[provider], adapter.methods.contains(method) else {
            let name =
                switch provider {
                case .wechatV2: "WeChat Pay API v2"
                case .wechatV3: "WeChat Pay API v3"
                case .alipay: "Alipay"
                case .applePay: "Apple Pay"
                }
            throw PaymentError(.invalidRequest, "\(name) is not configured on this server")
        }
        return adapter
    }

    /// Every configured adapter.
    var all: [any PaymentAdapter] { byProvider.values.sorted { $0.provider.rawValue < $1.provider.rawValue } }
}

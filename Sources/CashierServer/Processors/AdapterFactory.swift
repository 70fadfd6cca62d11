import Cashier
import CashierStore
import Foundation
import WeChatPay

/// The providers the configuration names, as adapters behind this server's circuit breaker.
enum AdapterFactory {
    /// - Parameters:
    ///   - shared: one libcurl transport for every provider: its connections are reused across calls.
    ///   - log: where each provider call is logged (``BreakingTransport``), if anywhere.
    static func adapters(
        _ configuration: MerchantConfiguration, breaker: ProviderBreaker, listening: ListeningPort, clock: any WallClock,
        shared: any HTTPTransport, log: ServerLog? = nil
    ) -> PaymentAdapters {
        func guarded(_ name: String, _ base: (any HTTPTransport)? = nil) -> any HTTPTransport {
            BreakingTransport(provider: name, breaker: breaker, base: base ?? shared, log: log)
        }
        let notifyBase: @Sendable () -> String = { Ledger.publicBase(configuration, listening) }
        var adapters: [any PaymentAdapter] = []
        if let wechat = configuration.wechat {
            adapters.append(
                WeChatV2Adapter(
                    currencies: WeChatPayer.currencies(wechat.crossBorderCurrencies), configuration: wechat,
                    payer: WeChatPayer(
                        appID: wechat.merchant.appID, mchID: wechat.merchant.mchID, miniProgram: configuration.miniProgram,
                        officialAccountID: configuration.officialAccount?.appID, transport: guarded("miniprogram")),
                    merchants: wechatV2Merchants(configuration), transport: guarded("wechat"),
                    mutualTLSTransport: wechat.mutualTLSTransport.map { guarded("wechat", $0) }, notifyBase: notifyBase, clock: clock))
        }
        if let v3 = configuration.wechatV3 {
            adapters.append(
                WeChatV3Adapter(
                    currencies: WeChatPayer.currencies(v3.crossBorderCurrencies), configuration: v3,
                    payer: WeChatPayer(
                        appID: v3.appID, mchID: v3.merchant.mchID, miniProgram: configuration.miniProgram,
                        officialAccountID: configuration.officialAccount?.appID, transport: guarded("miniprogram")),
                    appIDs: wechatAppIDs(configuration), transport: guarded("wechat_v3", v3.transport), notifyBase: notifyBase,
                    clock: clock))
        }
        if let alipay = configuration.alipay {
            adapters.append(AlipayAdapter(configuration: alipay, transport: guarded("alipay"), notifyBase: notifyBase, clock: clock))
        }
        if let applePay = configuration.applePay {
            adapters.append(ApplePayAdapter(configuration: applePay, takesCoupons: !configuration.coupons.isEmpty))
        }
        if let unionpay = configuration.unionpay {
            adapters.append(UnionPayAdapter(configuration: unionpay, transport: guarded("unionpay"), notifyBase: notifyBase, clock: clock))
        }
        return PaymentAdapters(
            adapters, defaultWeChatAPI: configuration.defaultWeChatAPI,
            partners: partnerAdapters(configuration, guarded: guarded, notifyBase: notifyBase, clock: clock))
    }

    /// Each sub-merchant's adapters: the service provider's credentials, naming the sub-merchant
    /// (`sub_mch_id` in v2, the partner APIs with `sub_mchid` in v3, `app_auth_token` at Alipay),
    /// with notification paths of its own (`/notify/…/m/{merchant}`).
    static func partnerAdapters(
        _ configuration: MerchantConfiguration, guarded: (String, (any HTTPTransport)?) -> any HTTPTransport,
        notifyBase: @escaping @Sendable () -> String, clock: any WallClock
    ) -> [(merchant: String, providerID: String, adapter: any PaymentAdapter)] {
        guard let provider = configuration.serviceProvider else { return [] }
        var partners: [(merchant: String, providerID: String, adapter: any PaymentAdapter)] = []
        for sub in configuration.subMerchants {
            if let sp = provider.wechat, let subMchID = sub.wechatSubMchID {
                var adapter = WeChatV2Adapter(
                    currencies: WeChatPayer.currencies(sp.crossBorderCurrencies), configuration: sp,
                    payer: WeChatPayer(
                        appID: sp.merchant.appID, mchID: sp.merchant.mchID, miniProgram: nil, officialAccountID: nil,
                        transport: guarded("miniprogram", nil)),
                    merchants: [sp.merchant] + (sub.wechatSubAppID.map { [sp.merchant.withAppID($0)] } ?? []),
                    transport: guarded("wechat", nil),
                    mutualTLSTransport: sp.mutualTLSTransport.map { guarded("wechat", $0) }, notifyBase: notifyBase, clock: clock)
                adapter.subMerchant = sub
                partners.append((sub.id, subMchID, adapter))
            }
            if let sp = provider.wechatV3, let subMchID = sub.wechatSubMchID {
                var adapter = WeChatV3Adapter(
                    currencies: WeChatPayer.currencies(sp.crossBorderCurrencies), configuration: sp,
                    payer: WeChatPayer(
                        appID: sp.appID, mchID: sp.merchant.mchID, miniProgram: nil, officialAccountID: nil,
                        transport: guarded("miniprogram", nil)),
                    appIDs: [sp.appID], transport: guarded("wechat_v3", sp.transport), notifyBase: notifyBase, clock: clock)
                adapter.subMerchant = sub
                partners.append((sub.id, subMchID, adapter))
            }
            if let isv = provider.alipay, sub.alipayAppAuthToken != nil, let appID = sub.alipayAppID {
                var adapter = AlipayAdapter(configuration: isv, transport: guarded("alipay", nil), notifyBase: notifyBase, clock: clock)
                adapter.subMerchant = sub
                partners.append((sub.id, appID, adapter))
            }
        }
        return partners
    }

    /// The API v2 merchant under each appid it pays for (the app first, then a mini program):
    /// what a v2 notification is verified against.
    static func wechatV2Merchants(_ configuration: MerchantConfiguration) -> [WeChatPay.V2.Merchant] {
        guard let main = configuration.wechat?.merchant else { return [] }
        let others = Set(
            [configuration.wechatV3?.appID, configuration.miniProgram?.appID, configuration.officialAccount?.appID].compactMap { $0 }
        ).subtracting([main.appID])
        return [main]
            + others.sorted().map { WeChatPay.V2.Merchant(appID: $0, mchID: main.mchID, apiKey: main.apiKey, signType: main.signType) }
    }

    /// The appids a WeChat notification may name: the app's, the mini program's and the official account's.
    static func wechatAppIDs(_ configuration: MerchantConfiguration) -> Set<String> {
        Set(
            [
                configuration.wechat?.merchant.appID, configuration.wechatV3?.appID, configuration.miniProgram?.appID,
                configuration.officialAccount?.appID,
            ].compactMap { $0 })
    }
}

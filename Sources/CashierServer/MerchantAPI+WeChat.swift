import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay in the merchant API: API v2 or v3 per payment, mini-program payers, and the
/// provider calls (query, refund, close) made with the API and appid the payment started with.
extension MerchantAPI {

    /// The API a payment uses: the request's `api`, else the configured default, else whichever is configured.
    func wechatAPI(_ requested: String?) throws -> MerchantConfiguration.WeChatAPI {
        let api: MerchantConfiguration.WeChatAPI
        if let requested {
            guard let named = MerchantConfiguration.WeChatAPI(rawValue: requested) else {
                throw PaymentError(.invalidRequest, "api '\(requested)' is not v2 or v3")
            }
            api = named
        } else {
            api = configuration.defaultWeChatAPI ?? (configuration.wechat != nil ? .v2 : .v3)
        }
        switch api {
        case .v2 where configuration.wechat == nil:
            throw PaymentError(.invalidRequest, "WeChat Pay API v2 is not configured on this server")
        case .v3 where configuration.wechatV3 == nil:
            throw PaymentError(.invalidRequest, "WeChat Pay API v3 is not configured on this server")
        default: return api
        }
    }

    /// The API v2 merchant under each appid it pays for (the app first, then a mini program):
    /// what a v2 notification is verified against. Made once, with the server.
    static func wechatV2Merchants(_ configuration: MerchantConfiguration) -> [WeChatPay.V2.Merchant] {
        guard let main = configuration.wechat?.merchant else { return [] }
        let others = Set([configuration.wechatV3?.appID, configuration.miniProgram?.appID].compactMap { $0 }).subtracting([main.appID])
        return [main]
            + others.sorted().map { WeChatPay.V2.Merchant(appID: $0, mchID: main.mchID, apiKey: main.apiKey, signType: main.signType) }
    }

    /// An API v2 client, for `appID` when the payment was for another app of the merchant (a mini program).
    func wechatClient(appID: String? = nil) throws -> WeChatPay.V2.Client {
        guard let wechat = configuration.wechat else {
            throw PaymentError(.invalidRequest, "WeChat Pay API v2 is not configured on this server")
        }
        var merchant = wechat.merchant
        if let appID, appID != merchant.appID {
            merchant = WeChatPay.V2.Merchant(appID: appID, mchID: merchant.mchID, apiKey: merchant.apiKey, signType: merchant.signType)
        }
        return WeChatPay.V2.Client(
            merchant: merchant, transport: transport("wechat"),
            mutualTLSTransport: wechat.mutualTLSTransport.map { transport("wechat", $0) },
            baseURL: wechat.baseURL)
    }

    func wechatV3Client() throws -> WeChatPay.V3.Client {
        guard let v3 = configuration.wechatV3 else {
            throw PaymentError(.invalidRequest, "WeChat Pay API v3 is not configured on this server")
        }
        return WeChatPay.V3.Client(
            merchant: v3.merchant, keys: v3.platformKeys, transport: transport("wechat_v3", v3.transport), baseURL: v3.baseURL)
    }

    /// The appids a WeChat notification may name: the app's and the mini program's.
    var wechatAppIDs: Set<String> {
        Set([configuration.wechat?.merchant.appID, configuration.wechatV3?.appID, configuration.miniProgram?.appID].compactMap { $0 })
    }

    /// Places the order at WeChat and signs what the wallet needs.
    /// - Returns: the JSON for the app and what the payment log remembers (`api`, `appid`).
    func wechatParameters(_ body: PaymentRequestBody, order: StoredOrder) async throws -> (json: [String: Any], detail: [String: String]) {
        let method = body.method
        let api = try wechatAPI(body.api)
        var openID = body.openid
        var appID = api == .v2 ? configuration.wechat!.merchant.appID : configuration.wechatV3!.appID
        if method == "wechat.miniprogram" {
            guard let mini = configuration.miniProgram else {
                throw PaymentError(.invalidRequest, "wechat.miniprogram needs a mini program (appid and secret) configured on this server")
            }
            guard let code = body.js_code, !code.isEmpty else {
                throw PaymentError(.invalidRequest, "wechat.miniprogram needs js_code, the code wx.login gave the mini program")
            }
            // The code is exchanged here, with the secret; the device only ever sees the openid's effect.
            openID = try await WeChatPay.MiniProgram(
                appID: mini.appID, secret: mini.secret, transport: transport("miniprogram"), baseURL: mini.baseURL
            )
            .session(code: code)
            .openID
            appID = mini.appID
        } else if method == "wechat.jsapi", openID?.isEmpty ?? true {
            throw PaymentError(.invalidRequest, "wechat.jsapi needs the payer's openid (from OAuth; mini programs use wechat.miniprogram)")
        }
        let jsapi = method == "wechat.jsapi" || method == "wechat.miniprogram"
        let detail = ["method": method, "api": api.rawValue, "appid": appID]
        let notifyURL = notifyBase + (api == .v2 ? "/notify/wechat/v2" : "/notify/wechat/v3")
        func encoded(_ value: some Encodable) throws -> Any { try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) }
        switch api {
        case .v2:
            let client = try wechatClient(appID: appID)
            let tradeType: WeChatPay.V2.UnifiedOrder.TradeType =
                switch method {
                case "wechat.app": .app
                case "wechat.native": .native
                case "wechat.h5": .mweb
                default: .jsapi
                }
            let result = try await client.unifiedOrder(
                .init(
                    tradeType: tradeType, body: order.description, outTradeNo: order.outTradeNo, total: order.total,
                    notifyURL: notifyURL, clientIP: body.client_ip ?? "127.0.0.1", openID: jsapi ? openID : nil,
                    productID: tradeType == .native ? order.id : nil))
            switch tradeType {
            case .native: return (["method": method, "api": "v2", "code_url": result.codeURL ?? ""], detail)
            case .mweb: return (["method": method, "api": "v2", "mweb_url": result.mwebURL ?? ""], detail)
            case .jsapi:
                let parameters = WeChatPay.V2.JSAPIParameters(prepayID: result.prepayID, merchant: client.merchant)
                return (["method": method, "api": "v2", "wechat": try encoded(parameters)], detail)
            case .app:
                let parameters = WeChatPay.V2.AppPayParameters(prepayID: result.prepayID, merchant: client.merchant)
                return (["method": method, "api": "v2", "wechat": try encoded(parameters)], detail)
            }
        case .v3:
            let client = try wechatV3Client()
            let kind: WeChatPay.V3.Client.PrepayKind =
                switch method {
                case "wechat.app": .app
                case "wechat.native": .native
                case "wechat.h5": .h5
                default: .jsapi
                }
            let prepay = try await client.prepay(
                kind, appID: appID, description: order.description, outTradeNo: order.outTradeNo, total: order.total, notifyURL: notifyURL,
                openID: jsapi ? openID : nil, clientIP: body.client_ip)
            switch kind {
            case .native: return (["method": method, "api": "v3", "code_url": prepay.codeURL ?? ""], detail)
            case .h5: return (["method": method, "api": "v3", "mweb_url": prepay.h5URL ?? ""], detail)
            case .jsapi:
                let parameters = try WeChatPay.JSAPIParameters(appID: appID, prepayID: prepay.prepayID ?? "", merchant: client.merchant)
                return (["method": method, "api": "v3", "wechat": try encoded(parameters)], detail)
            case .app:
                let parameters = try WeChatPay.AppPayParameters(appID: appID, prepayID: prepay.prepayID ?? "", merchant: client.merchant)
                return (["method": method, "api": "v3", "wechat": try encoded(parameters)], detail)
            }
        }
    }

    /// "Query when in doubt": the fields to record when WeChat confirms the payment for the
    /// order's amount (and its merchant), `nil` otherwise.
    func wechatConfirmedPayment(_ order: StoredOrder, _ started: StartedPayment) async throws -> [String: String]? {
        if started.api == .v3 {
            let transaction = try await wechatV3Client().transaction(outTradeNo: order.outTradeNo)
            guard transaction.isPaid, transaction.amount == order.total, transaction.mchID == configuration.wechatV3?.merchant.mchID
            else { return nil }
            return ["trade_state": transaction.tradeState, "transaction_id": transaction.transactionID ?? ""]
        }
        let status = try await wechatClient(appID: started.appID).orderQuery(outTradeNo: order.outTradeNo)
        guard status.tradeState == "SUCCESS", status.amount == order.total else { return nil }
        return ["trade_state": status.tradeState, "transaction_id": status.transactionID ?? ""]
    }

    func wechatRefund(_ order: StoredOrder, _ started: StartedPayment, requestNo: String, amount: Money, reason: String?) async throws {
        if started.api == .v3 {
            _ = try await wechatV3Client().refund(
                outTradeNo: order.outTradeNo, outRefundNo: requestNo, total: order.total, refund: amount, reason: reason,
                notifyURL: notifyBase + "/notify/wechat/v3")
        } else {
            _ = try await wechatClient(appID: started.appID).refund(
                outTradeNo: order.outTradeNo, outRefundNo: requestNo, total: order.total, refund: amount, reason: reason,
                notifyURL: notifyBase + "/notify/wechat/v2/refund")
        }
    }

    func wechatClose(_ order: StoredOrder, _ started: StartedPayment) async throws {
        if started.api == .v3 {
            try await wechatV3Client().close(outTradeNo: order.outTradeNo)
        } else {
            try await wechatClient(appID: started.appID).closeOrder(outTradeNo: order.outTradeNo)
        }
    }
}

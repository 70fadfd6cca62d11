import CashierCrypto
import CashierServer
import CashierStore
import Foundation
import WeChatPay

/// `scale-notify-vs-empty`: verified WeChat Pay notifications a second (as `server-notify` sends
/// them: wrk, 64 connections, 200 orders, each paid once and then repeated) by a server on the
/// full store, against the same on an empty store in the same run: the two alternate, `rounds`
/// each, and the best of each is kept (this disk's speed drifts within minutes).
struct ScaleNotify {
    let seconds: Int
    let folder: URL

    /// Notifications a second on `store`, one wrk run.
    func rate(_ store: any OrderStore) async throws -> Double {
        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: SecureRandom.alphanumeric(count: 32))
        let keys = MerchantConfiguration.generateKeys()
        let server = MerchantServer(
            configuration: MerchantConfiguration(
                secretKey: keys.secret, publishableKey: keys.publishable, wechat: .init(merchant: merchant)),
            store: store)
        try await server.start()
        do {
            let script = try await ServerSuite.notificationScript(store: store, merchant: merchant, folder: folder)
            let result = try await ServerSuite.wrk([
                "-t2", "-c\(ServerSuite.connections)", "-d\(seconds)s", "-s", script.path,
                server.baseURL.absoluteString + "/notify/wechat/v2",
            ])
            await server.stop()
            return result.rate
        } catch {
            await server.stop()
            throw error
        }
    }

    /// The best rate of each store over `rounds` alternations, the empty store first.
    func compare(full: any OrderStore, empty: any OrderStore, rounds: Int = 2) async throws -> (full: Double, empty: Double) {
        var best = (full: 0.0, empty: 0.0)
        for _ in 0..<rounds {
            best.empty = max(best.empty, try await rate(empty))
            best.full = max(best.full, try await rate(full))
        }
        return best
    }
}

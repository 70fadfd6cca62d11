import Cashier
import CashierClient
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import UnionPay

/// The app's UnionPay side: the `tn` from the server to a wallet behind ``UnionPayWallet``, the
/// wallet's word never taken for "paid", and what the app tells the server about its wallets.
///
/// Until the merchant server's UnionPay adapter lands, a stand-in server plays its part here: it
/// gets a `tn` from the sandbox's UnionPay with the UnionPay library and answers the order's
/// status from the sandbox's books — as the adapter will from UnionPay's notification and query.
@Suite struct UnionPayClientTests {
    final class StandInServer: Sendable {
        let sandbox: SandboxServer
        let server: HTTPServer

        init() async throws {
            sandbox = SandboxServer(wechatMerchants: [], timeScale: 0.001)
            try sandbox.start()
            let ca = sandbox.unionpay.ca
            let client = UnionPay.Client(
                merchantID: ca.merchantID,
                signingKey: try UnionPay.SigningKey(privateKey: ca.merchantKey, certificate: ca.merchantCertificate),
                verifier: try UnionPay.Verifier(root: ca.root, middle: ca.middle), endpoints: sandbox.unionpayEndpoints)
            let sandbox = self.sandbox
            let bodies = Box()
            let orders = Box2()
            server = HTTPServer(configuration: .init()) { request in
                let parts = request.path.split(separator: "/")
                guard parts.count >= 3, parts[0] == "v1", parts[1] == "orders" else { return .text("not found", status: 404) }
                let id = String(parts[2])
                if request.method == "POST" {
                    bodies.append(Data(request.body))
                    let orderID = "C\(Int(Date().timeIntervalSince1970))\(UInt32.random(in: 0...UInt32.max))"
                    orders.set(id, orderID)
                    guard
                        let answer = try? await client.consume(
                            UnionPay.ConsumeRequest(
                                orderID: orderID, amount: Money(minorUnits: 1200, currency: .cny),
                                backURL: URL(string: "http://127.0.0.1:9/n")!,
                                time: Date()))
                    else { return .error(status: 502, code: "provider_error", message: "no tn") }
                    return .json(object: ["unionpay": ["tn": answer.tn, "mode": "01"]])
                }
                let paid = await sandbox.unionpay.ledger().first { $0.out_trade_no == orders.get(id) }?.paid == true
                return .json(object: [
                    "id": id, "out_trade_no": orders.get(id) ?? "", "status": paid ? "paid" : "pending",
                    "amount": ["amount": "12.00", "amount_minor": 1200, "currency": "CNY"],
                ])
            }
            self.bodiesBox = bodies
            try server.start()
        }

        /// The request bodies, as JSON.
        final class Box: Sendable {
            let items = Mutex<[Data]>([])
            func append(_ item: Data) { items.withLock { $0.append(item) } }
        }
        /// Order id → the UnionPay orderId its payment was consumed under.
        final class Box2: Sendable {
            let items = Mutex<[String: String]>([:])
            func set(_ key: String, _ value: String) { items.withLock { $0[key] = value } }
            func get(_ key: String) -> String? { items.withLock { $0[key] } }
        }
        private let bodiesBox: Box

        var lastBody: [String: Any] {
            bodiesBox.items.withLock { $0.last }.flatMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] } ?? [:]
        }
        var client: CashierClient { CashierClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, publishableKey: "pk_test") }

        func stop() async {
            await server.stop()
            await sandbox.stop()
        }
    }

    /// A scripted wallet: answers `result`, remembering the payment it was handed.
    final class ScriptedWallet: UnionPayWallet {
        let result: UnionPayResult
        let handed = Mutex<[UnionPayPayment]>([])
        init(_ result: UnionPayResult) { self.result = result }
        func pay(_ payment: UnionPayPayment) async throws -> UnionPayResult {
            handed.withLock { $0.append(payment) }
            return result
        }
    }

    @Test(.timeLimit(.minutes(2))) func theServersWordDecides() async throws {
        let world = try await StandInServer()
        let sandboxWallet = UnionPaySandboxWallet(sandboxURL: world.sandbox.baseURL)
        let wallets = PayerWallets(applePayNetworks: ["ChinaUnionPay"])
        let paid = try await world.client.payWithUnionPay(
            orderID: "o1", clientSecret: "cs", method: .applePay, wallet: sandboxWallet, wallets: wallets, timeout: .seconds(10))
        guard case .paid(let order) = paid else {
            Issue.record("ended as \(paid)")
            return
        }
        #expect(order.amountMinor == 1200)
        #expect(world.lastBody["method"] as? String == "unionpay.applepay")
        #expect((world.lastBody["payer_wallets"] as? [String: Any])?["apple_pay_networks"] as? [String] == ["ChinaUnionPay"])
        // The plugin says success, but nothing was paid: not paid.
        let claimed = try await world.client.payWithUnionPay(
            orderID: "o2", clientSecret: "cs", method: .app,
            wallet: UnionPaySandboxWallet(sandboxURL: world.sandbox.baseURL, behavior: .reportSuccessWithoutPaying),
            timeout: .seconds(2))
        #expect({ if case .notPaid(_, .unionPay(let result)) = claimed { result.status == .success } else { false } }(), "\(claimed)")
        #expect(world.lastBody["method"] as? String == "unionpay.app" && world.lastBody["payer_wallets"] == nil)
        // Cancelled in the plugin: cancelled, the server not asked to confirm.
        let cancelled = try await world.client.payWithUnionPay(
            orderID: "o3", clientSecret: "cs", method: .applePay, wallet: ScriptedWallet(UnionPayResult(status: .cancel)))
        #expect(cancelled == .cancelled)
        // Declined: not paid, whatever the wallet adds.
        let declined = try await world.client.payWithUnionPay(
            orderID: "o4", clientSecret: "cs", method: .applePay,
            wallet: UnionPaySandboxWallet(sandboxURL: world.sandbox.baseURL, behavior: .fail),
            timeout: .seconds(2))
        #expect({ if case .notPaid = declined { true } else { false } }())
        await world.stop()
    }

    @Test func theWalletGetsTheServersTNAndMode() async throws {
        let wallet = ScriptedWallet(UnionPayResult(status: .unknownCancel))
        let payment = try UnionPayPayment(json: Data(#"{"unionpay":{"tn":" 758492451120261206143 ","mode":"01"}}"#.utf8))
        #expect(payment == UnionPayPayment(tn: "758492451120261206143", mode: .test))
        let outcome = try await UnionPayLauncher(wallet: wallet).launch(payment)
        #expect(outcome == .unionPay(UnionPayResult(status: .unknownCancel)) && outcome.interpretation == .unknown)
        #expect(wallet.handed.withLock { $0 } == [payment])
        #expect(throws: CashierClientError.self) { try UnionPayPayment(json: Data(#"{"unionpay":{"tn":"12a"}}"#.utf8)) }
        #expect(throws: CashierClientError.self) { try UnionPayPayment(json: Data(#"{"unionpay":{"tn":"12","mode":"02"}}"#.utf8)) }
        #expect(try UnionPayPayment(json: Data(#"{"tn":"12"}"#.utf8)).mode == .production)
    }

    @Test(arguments: [
        (
            "shop://uppayresult?code=success&data=%7B%22sign%22%3A%22x%22%7D", UnionPayResult.Status.success,
            WalletOutcome.Interpretation.reportedSuccess
        ),
        ("shop://uppayresult?code=cancel", .cancel, .cancelled),
        ("shop://uppayresult?code=fail", .failure, .reportedFailure),
    ])
    func theAppsCallbackURL(url: String, status: UnionPayResult.Status, interpretation: WalletOutcome.Interpretation) throws {
        let result = try #require(UnionPayResult(callbackURL: URL(string: url)!))
        #expect(result.status == status && WalletOutcome.unionPay(result).interpretation == interpretation)
    }

    @Test func otherURLsAreNotUnionPays() throws {
        #expect(UnionPayResult(callbackURL: URL(string: "shop://safepay/?x")!) == nil)
        #expect(UnionPayResult(callbackURL: URL(string: "shop://uppayresult")!) == nil)
        #expect(try JSONEncoder().encode(PayerWallets()) == Data("{}".utf8) && PayerWallets().canPayWithChinaUnionPay == nil)
        #expect(PayerWallets(applePayNetworks: ["Visa"]).canPayWithChinaUnionPay == false)
    }
}

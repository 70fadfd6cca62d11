import ApplePay
import Cashier
import CashierClient
import CashierCrypto
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import CashierServer
import CashierStore
import ChildProcesses
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

import typealias CashierClient.PaymentMethod

/// The app side end to end on Linux: CashierClient against a real merchant server and the
/// sandbox over sockets, with SandboxLauncher playing each wallet.
@Suite struct CashierClientTests {
    final class World: Sendable {
        let sandbox: SandboxServer
        let server: MerchantServer
        let keys: (secret: String, publishable: String)

        init(publishableRequestsPerMinute: Int = 0) async throws {
            let mode = try await SandboxMode.start(timeScale: 0.001)
            sandbox = mode.sandbox
            keys = (mode.configuration.secretKey, mode.configuration.publishableKey)
            let store = try SQLiteOrderStore(
                path: Scratch.url("client-\(UUID().uuidString).db").path)
            // The sandbox's token minter reads the order's total from here.
            await mode.connect(to: store)
            var configuration = mode.configuration
            configuration.publishableRequestsPerMinute = publishableRequestsPerMinute
            server = MerchantServer(configuration: configuration, store: store, audit: SecretsAudit.fromEnvironment())
            try await server.start()
        }

        var client: CashierClient { CashierClient(baseURL: server.baseURL, publishableKey: keys.publishable) }

        /// The merchant's backend creates the order (the app never prices it).
        func order(_ amount: String = "12.00") async throws -> (id: String, secret: String) {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(keys.secret)")
            let body = try JSONSerialization.data(withJSONObject: ["items": [["label": "Latte", "amount": amount]], "currency": "CNY"])
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: "POST", url: URL(string: server.baseURL.absoluteString + "/v1/orders")!, headers: headers, body: body))
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            return (object["id"] as? String ?? "", object["client_secret"] as? String ?? "")
        }

        /// The merchant trade number of the order's newest payment (what the provider knows it by).
        func outTradeNumber(_ id: String) async throws -> String? {
            try await server.store.payments(orderID: id).max { $0.createdAt < $1.createdAt }?.outTradeNo
        }

        func stop() async {
            await server.stop()
            await sandbox.stop()
        }
    }

    @Test(arguments: PaymentMethod.startedFromApps)
    func everyMethodIsPaidInTheServersWords(method: PaymentMethod) async throws {
        let world = try await World()
        let order = try await world.order()
        let result = try await world.client.pay(
            orderID: order.id, clientSecret: order.secret, method: method, launcher: SandboxLauncher(sandboxURL: world.sandbox.baseURL),
            // A return address on an origin the server lists (sandbox mode lists the sandbox's own).
            timeout: .seconds(10), returnURL: world.sandbox.baseURL.appendingPathComponent("return"))
        guard case .paid(let paid) = result else {
            Issue.record("\(method.rawValue) ended as \(result)")
            return
        }
        #expect(paid.status == .paid && paid.amountMinor == 1200 && paid.currency == "CNY")
        await world.stop()
    }

    /// The same, against `cashier-sandbox serve` as a separate process, as an app developer runs it.
    @Test(.timeLimit(.minutes(3)))
    func everyMethodIsPaidThroughCashierServe() async throws {
        let binary = packageRoot.appendingPathComponent(".build/debug/cashier-sandbox")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the cashier-sandbox executable first (swift build)")
        let folder = Scratch.url("client-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let process = try ChildProcess(
            binary.path, ["serve", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path],
            stdout: .null)
        defer { process.stopForGood() }
        let urls = try #require(try await readyFile(ready))
        let api = try #require(urls["api_url"].flatMap(URL.init(string:)))
        let sandbox = try #require(urls["sandbox_url"].flatMap(URL.init(string:)))
        let secret = try #require(urls["secret_key"])
        let client = CashierClient(baseURL: api, publishableKey: try #require(urls["publishable_key"]))
        for method in PaymentMethod.startedFromApps {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(secret)")
            let body = try JSONSerialization.data(withJSONObject: ["items": [["label": "Latte", "amount": "12.00"]], "currency": "CNY"])
            let created = try await URLSessionTransport().send(
                HTTPRequest(method: "POST", url: api.appendingPathComponent("v1/orders"), headers: headers, body: body))
            let order = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
            let result = try await client.pay(
                orderID: order["id"] as? String ?? "", clientSecret: order["client_secret"] as? String ?? "", method: method,
                launcher: SandboxLauncher(sandboxURL: sandbox), timeout: .seconds(10), returnURL: sandbox.appendingPathComponent("return")
            )
            guard case .paid(let paid) = result else {
                Issue.record("\(method.rawValue) through cashier serve ended as \(result)")
                continue
            }
            #expect(paid.amountMinor == 1200)
        }
    }

    @Test(arguments: [PaymentMethod.wechatApp, .alipayApp, .applePay])
    func aCancelledWalletIsCancelled(method: PaymentMethod) async throws {
        let world = try await World()
        let order = try await world.order()
        let result = try await world.client.pay(
            orderID: order.id, clientSecret: order.secret, method: method,
            launcher: SandboxLauncher(sandboxURL: world.sandbox.baseURL, behavior: .cancel))
        #expect(result == .cancelled)
        #expect(try await world.client.order(id: order.id, clientSecret: order.secret).status == .pending)
        await world.stop()
    }

    @Test(arguments: [PaymentMethod.wechatApp, .alipayApp, .applePay])
    func aWalletThatSaysSuccessIsNotBelieved(method: PaymentMethod) async throws {
        let world = try await World()
        let order = try await world.order()
        let result = try? await world.client.pay(
            orderID: order.id, clientSecret: order.secret, method: method,
            launcher: SandboxLauncher(sandboxURL: world.sandbox.baseURL, behavior: .reportSuccessWithoutPaying), timeout: .seconds(1))
        if case .paid = result { Issue.record("\(method.rawValue): the client believed a wallet that did not pay") }
        #expect(try await world.client.order(id: order.id, clientSecret: order.secret).status != .paid)
        await world.stop()
    }

    @Test(arguments: [PaymentMethod.wechatApp, .applePay])
    func aWalletErrorIsNotPaid(method: PaymentMethod) async throws {
        let world = try await World()
        let order = try await world.order()
        let result = try await world.client.pay(
            orderID: order.id, clientSecret: order.secret, method: method,
            launcher: SandboxLauncher(sandboxURL: world.sandbox.baseURL, behavior: .fail), timeout: .seconds(1))
        guard case .notPaid(let seen, _) = result else {
            Issue.record("\(method.rawValue) ended as \(result)")
            return
        }
        // A declined Apple Pay authorisation is a failed attempt (another card may be tried); a
        // WeChat payment the payer's wallet could not complete is still payable.
        #expect(seen.status == (method == .applePay ? .failed : .pending))
        await world.stop()
    }

    @Test func aWalletAnswerArrivingByURLIsConfirmedWithTheServer() async throws {
        let world = try await World()
        let order = try await world.order("8.80")
        let parameters = try await world.client.startPayment(orderID: order.id, clientSecret: order.secret, method: .alipayApp)
        guard case .alipayOrderString(let orderString) = parameters else {
            Issue.record("alipay.app answered \(parameters)")
            return
        }
        // The app was relaunched by Alipay's safepay URL saying 9000, but nothing was paid: not paid.
        let says = try #require(WalletOutcome(alipayCallbackURL: try WalletCallbackTests.safepay(["ResultStatus": "9000"])))
        let early = try await world.client.finish(orderID: order.id, clientSecret: order.secret, after: says, timeout: .milliseconds(600))
        guard case .notPaid(let seen, _) = early else {
            Issue.record("a 9000 URL without a payment ended as \(early)")
            return
        }
        #expect(seen.status == .pending)
        // Once the payer has truly paid, the same URL ends as paid, by the server's word.
        _ = await world.sandbox.alipay.payOrderString(orderString, outcome: .success)
        let later = try await world.client.finish(orderID: order.id, clientSecret: order.secret, after: says, timeout: .seconds(10))
        guard case .paid(let paid) = later else {
            Issue.record("a paid order ended as \(later)")
            return
        }
        #expect(paid.status == .paid)
        // A cancel URL ends it without asking.
        let cancelled = try #require(WalletOutcome(alipayCallbackURL: try WalletCallbackTests.safepay(["ResultStatus": "6001"])))
        #expect(try await world.client.finish(orderID: "ord_unknown", clientSecret: "x", after: cancelled) == .cancelled)
        await world.stop()
    }

    @Test func walletResultsAreInterpreted() {
        #expect(WalletOutcome.wechat(errCode: 0).interpretation == .reportedSuccess)
        #expect(WalletOutcome.wechat(errCode: -2).interpretation == .cancelled)
        #expect(WalletOutcome.wechat(errCode: -1).interpretation == .reportedFailure)
        for (status, expected) in [
            ("9000", WalletOutcome.Interpretation.reportedSuccess), ("8000", .unknown), ("4000", .reportedFailure),
            ("5000", .reportedFailure),
            ("6001", .cancelled), ("6002", .unknown), ("6004", .unknown),
        ] {
            #expect(WalletOutcome.alipay(resultStatus: status).interpretation == expected, "\(status)")
        }
        #expect(WalletOutcome.applePayDismissed.interpretation == .cancelled)
        #expect(WalletOutcome.applePayCompleted(.init(status: 0, orderStatus: .paid)).interpretation == .reportedSuccess)
        #expect(WalletOutcome.applePayCompleted(.init(status: 1, orderStatus: .pending)).interpretation == .reportedFailure)
    }

    /// The order's event stream: the app sees "pending" then "paid" as the server records them,
    /// without asking in a loop; a wrong secret is refused when the stream opens.
    @Test(.timeLimit(.minutes(3))) func orderUpdatesFollowTheServersRecord() async throws {
        let world = try await World()
        let order = try await world.order("8.80")
        let updates = world.client.orderUpdates(orderID: order.id, clientSecret: order.secret)
        var seen: [ClientOrder.Status] = []
        var paid: ClientOrder?
        for try await update in updates {
            seen.append(update.status)
            if update.status == .created {
                _ = try await world.client.startPayment(orderID: order.id, clientSecret: order.secret, method: .alipayQR)
            }
            if update.status == .pending, seen.filter({ $0 == .pending }).count == 1 {
                // The payer pays: the provider notifies the server, and the stream says so.
                let number = try #require(try await world.outTradeNumber(order.id))
                _ = await world.sandbox.alipay.pay(outTradeNo: number, outcome: .success)
            }
            if update.status.isPaid {
                paid = update
                break
            }
        }
        #expect(seen.first == .created && seen.contains(.pending) && paid?.amountMinor == 880)
        let refused = await #expect(throws: CashierClientError.self) {
            for try await _ in world.client.orderUpdates(orderID: order.id, clientSecret: "guess") {}
        }
        // The same 401 as for an order that does not exist: a guess learns nothing.
        #expect(refused?.httpStatus == 401 && refused?.code == "unauthorized")
        await world.stop()
    }

    /// Many payers behind one address (a carrier's NAT) use up the publishable key's requests:
    /// the server answers 429 with `Retry-After`, and the error says how long to wait.
    @Test func aRateLimitedRequestSaysHowLongToWait() async throws {
        let world = try await World(publishableRequestsPerMinute: 2)
        let order = try await world.order()
        var refused: CashierClientError?
        for _ in 0..<3 where refused == nil {
            do {
                _ = try await world.client.startPayment(orderID: order.id, clientSecret: order.secret, method: .wechatNative)
            } catch let error as CashierClientError {
                refused = error
            }
        }
        #expect(refused?.httpStatus == 429 && refused?.code == "rate_limited", "\(String(describing: refused))")
        let wait = try #require(refused?.retryAfter)
        #expect(wait >= .seconds(1) && wait <= .seconds(60), "\(wait)")
        await world.stop()
    }

    /// A confirmation waits as long as a 429's `Retry-After` asks (a proxy in front limiting the
    /// polls) instead of asking again every few hundred milliseconds, and ends at once, naming
    /// the limit, when the wait would pass its timeout.
    @Test func aConfirmationWaitsAsARateLimitAsks() async throws {
        let refusals = Atomic<Int>(0)
        let firstAsked = Mutex<ContinuousClock.Instant?>(nil)
        let retryAfter = Mutex("1")
        let proxy = HTTPServer(configuration: .init()) { _ in
            let now = ContinuousClock.now
            let first = firstAsked.withLock { first in
                if first == nil { first = now }
                return first!
            }
            guard now - first >= .seconds(1) else {
                refusals.add(1, ordering: .relaxed)
                var limited = HTTPServerResponse.error(status: 429, code: "rate_limited", message: "slow down")
                limited.headers.set("Retry-After", retryAfter.withLock { $0 })
                return .now(limited)
            }
            return .now(
                .json(object: ["id": "ord_1", "status": "paid", "amount": ["amount": "1.00", "amount_minor": 100, "currency": "CNY"]]))
        }
        try proxy.start()
        let client = CashierClient(baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!, publishableKey: "pk_test")
        let paid = try await client.confirm(orderID: "ord_1", clientSecret: "s", timeout: .seconds(20), firstDelay: .milliseconds(50))
        #expect(paid.status == .paid && refusals.load(ordering: .relaxed) == 1)
        // A wait past the timeout: ended at once, with the server's reason.
        firstAsked.withLock { $0 = nil }
        retryAfter.withLock { $0 = "30" }
        let error = await #expect(throws: CashierClientError.self) {
            try await client.confirm(orderID: "ord_1", clientSecret: "s", timeout: .seconds(5), firstDelay: .milliseconds(50))
        }
        #expect(error?.code == "confirmation_timeout" && error?.message.contains("slow down") == true, "\(String(describing: error))")
        #expect(refusals.load(ordering: .relaxed) == 2)
        await proxy.stop()
    }

    @Test func aServerThatCannotBeReachedNeverMeansPaid() async throws {
        let world = try await World()
        let order = try await world.order()
        _ = try await world.client.startPayment(orderID: order.id, clientSecret: order.secret, method: .wechatNative)
        let port = world.server.port
        await world.server.stop()  // the network goes away mid-confirmation
        let offline = CashierClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, publishableKey: world.keys.publishable)
        let error = await #expect(throws: CashierClientError.self) {
            try await offline.confirm(orderID: order.id, clientSecret: order.secret, timeout: .seconds(1), firstDelay: .milliseconds(100))
        }
        #expect(error?.code == "confirmation_timeout")
        await world.sandbox.stop()
    }
}

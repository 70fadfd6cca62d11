import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierSandboxMode
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// The authorisation matrix's server and what each of its cells needs: a sandbox-mode server with
/// the test helpers, two sub-merchants (`north`, `south`) and a key for each, a revoked key, a
/// webhook endpoint, Apple Pay held for capture, and `/metrics` behind a token of its own.
final class MatrixWorld: Sendable {
    typealias Credential = AuthorizationMatrixTests.Credential

    let fixture: ServerFixture
    let receiver: WebhookReceiver
    let northKey: String
    let southKey: String
    let revokedKey: String
    let metricsToken = "mt_" + SecureRandom.alphanumeric(count: 32)
    let today = BeijingTime.formatter("yyyy-MM-dd").string(from: Date())

    init() async throws {
        receiver = try WebhookReceiver(failures: 0)
        let token = metricsToken
        fixture = try await ServerFixture(webhook: .init(url: receiver.url, secret: "whsec_matrix"), sandboxHelpers: true) {
            $0.subMerchants.append(IdempotencyScopeTests.south)
            $0.applePay?.capture = .manual
            $0.metricsAccess = .token(token)
            $0.applePay?.adyenHMACKey = String(repeating: "0A", count: 32)
        }
        var keys: [String] = []
        for (label, merchant) in [("north", "north"), ("south", "south"), ("rotated", nil)] as [(String, String?)] {
            let (key, record) = MerchantServer.makeSecretKey(label: label, merchant: merchant)
            try await fixture.store.createAPIKey(record)
            if merchant == nil { _ = try await fixture.store.revokeAPIKey(id: record.id, now: Date()) }
            keys.append(key)
        }
        (northKey, southKey, revokedKey) = (keys[0], keys[1], keys[2])
        // The one credential /metrics takes: not any of the matrix's.
        let metrics = await fixture.server.call("GET", "/metrics", headers: InProcess.bearer(token))
        #expect(metrics.status == 200)
    }

    func stop() async {
        await fixture.stop()
        await receiver.server.stop()
    }

    var server: MerchantServer { fixture.server }

    // MARK: State

    /// What a cell's request names: a fresh order of `north`'s — the direct merchant's for Apple
    /// Pay's held and authorised states —, in the state its route needs.
    struct Made: Sendable {
        var orderID = "ord_00000000000000000000none"
        var secret = "ord_00000000000000000000none_secret_000000000000000000000000"
        var outTradeNo = ""
        var paymentID = "pay_none"
        var webhookID = "whk_none"
        /// A complaint about the order's payment (`cmp_…`), for the complaint routes.
        var complaintID = "cmp_none"
        /// A transfer the platform made (`tr_…`), for the transfer routes.
        var transferID = "tr_none"
        /// A receiver the platform added (`rcv_…`), for the receiver routes and the splits.
        var receiverID = "rcv_none"
        /// A finished split of the order (`spl_…`), for the split routes.
        var splitID = "spl_none"
        /// A signed agreement (`agr_…`) with a subscription (`sub_…`) whose first charge is open,
        /// for the dashboard's recurring pages and forms.
        var agreementID = "agr_none"
        var subscriptionID = "sub_none"
        /// An Apple Pay token for the order (a PKPayment's JSON).
        var token: [String: Any]? {
            tokenJSON.flatMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] }
        }
        var tokenJSON: Data?
    }

    enum Needs {
        case nothing, order, pending, paid, held, applePayStarted, webhook, complaint, transfer, receiver, split
        case subscription, pausedSubscription
    }

    static func needs(_ route: String) -> Needs {
        switch route {
        case "POST /v1/orders/{id}/refunds", "POST /dashboard/orders/{id}/refund", "POST /dashboard/payments/{id}/refund": .paid
        case "POST /v1/orders/{id}/capture", "POST /v1/orders/{id}/void", "POST /dashboard/orders/{id}/capture",
            "POST /dashboard/orders/{id}/void":
            .held
        case "POST /v1/orders/{id}/payments/applepay/authorize": .applePayStarted
        case "POST /v1/webhooks/{id}/resend", "POST /dashboard/webhooks/{id}/resend": .webhook
        case "POST /v1/test_helpers/orders/{id}/pay": .pending
        case "POST /dashboard/subscriptions/{id}/resume", "POST /v1/subscriptions/{id}/resume": .pausedSubscription
        case let route where route.contains(" /v1/agreements/") || route.contains(" /v1/subscriptions/"): .subscription
        case "POST /v1/subscriptions": .subscription
        case let route where route.hasPrefix("GET /dashboard/agreements/") || route.contains(" /dashboard/subscriptions/"): .subscription
        case let route where route.contains("/complaints/{id}"): .complaint
        case let route where route.contains("/transfers/{id}"): .transfer
        case let route where route.contains("/receivers/{id}"): .receiver
        case let route where route.contains("/splits"): .split
        default:
            route.hasPrefix("POST /notify/") ? .pending : route.contains("{id}") || route.contains("{secret}") ? .order : .nothing
        }
    }

    /// The platform's call, in process; its JSON.
    func platform(_ method: String, _ path: String, json: Any? = nil) async throws -> [String: Any] {
        let answer = await server.call(method, path, headers: InProcess.bearer(fixture.keys.secret), json: json)
        try #require((200..<300).contains(answer.status), "\(method) \(path): \(answer.status) \(answer.text)")
        return answer.object
    }

    func make(_ needs: Needs) async throws -> Made {
        var made = Made()
        guard needs != .nothing else { return made }
        if needs == .receiver {
            made.receiverID = try await receiver()
            return made
        }
        if needs == .split { return try await split() }
        if needs == .subscription || needs == .pausedSubscription {
            let seeded = try await RecurringDashboardTests.seed(fixture, paused: needs == .pausedSubscription)
            (made.agreementID, made.subscriptionID) = (seeded.agreement.id, seeded.subscription.id)
            return made
        }
        // Apple Pay is the direct merchant's alone (a sub-merchant has no processor of its own).
        var body: [String: Any] = ["items": [["label": "Latte", "amount": "6.00"]], "currency": "CNY", "description": "Latte"]
        if needs != .held && needs != .applePayStarted { body["merchant"] = "north" }
        let order = try await platform("POST", "/v1/orders", json: body)
        made.orderID = order["id"] as? String ?? ""
        made.secret = order["client_secret"] as? String ?? ""
        switch needs {
        case .nothing, .order, .receiver, .split, .subscription, .pausedSubscription: break
        case .pending:
            let started = try await platform("POST", "/v1/orders/\(made.orderID)/payments", json: ["method": "wechat.native", "api": "v2"])
            made.outTradeNo = started["out_trade_no"] as? String ?? ""
            made.paymentID = started["payment_id"] as? String ?? ""
        case .paid, .webhook:
            let paid = try await platform(
                "POST", "/v1/orders/\(made.orderID)/payments", json: ["method": "wechat.barcode", "auth_code": "134567890123450000"])
            try #require(paid["status"] as? String == "paid", "\(paid)")
            made.paymentID = try await fixture.store.payments(orderID: made.orderID).first { $0.status == .succeeded }?.id ?? ""
            if needs == .webhook {
                let listed = try await platform("GET", "/v1/webhooks?order_id=\(made.orderID)")
                made.webhookID = ((listed["data"] as? [[String: Any]])?.first?["id"] as? String) ?? ""
                try #require(!made.webhookID.isEmpty, "\(listed)")
            }
        case .complaint:
            made.complaintID = try await complaint(&made)
        case .transfer:
            made.transferID = try await platform("POST", "/v1/transfers", json: Self.transferBody)["id"] as? String ?? ""
            try #require(made.transferID.hasPrefix("tr_"))
        case .held, .applePayStarted:
            _ = try await platform("POST", "/v1/orders/\(made.orderID)/payments", json: ["method": "applepay"])
            let minted = try await fixture.transport.send(
                HTTPRequest(
                    method: "POST", url: fixture.sandbox.baseURL.appendingPathComponent("sandbox/applepay/token"),
                    body: try JSONSerialization.data(withJSONObject: ["order_id": made.orderID, "amount": "6.00"])))
            try #require(minted.status == 200, "\(String(decoding: minted.body, as: UTF8.self))")
            made.tokenJSON = minted.body
            if needs == .held {
                let held = try await platform(
                    "POST", "/v1/orders/\(made.orderID)/payments/applepay/authorize", json: ["token": made.token ?? [:]])
                try #require(held["status"] as? Int == 0, "\(held)")
            }
        }
        return made
    }

    /// A payer's complaint asking for 1.00 back, about the order paid through WeChat Pay v3 (as
    /// `north`, through the service provider), read into the server. - Returns: its id.
    func complaint(_ made: inout Made) async throws -> String {
        let started = try await platform("POST", "/v1/orders/\(made.orderID)/payments", json: ["method": "wechat.native", "api": "v3"])
        made.outTradeNo = started["out_trade_no"] as? String ?? ""
        made.paymentID = started["payment_id"] as? String ?? ""
        try #require(await fixture.sandbox.wechatV3.pay(outTradeNo: made.outTradeNo, outcome: .success) == "SUCCESS")
        let orderID = made.orderID
        try #require(try await eventually { try await self.fixture.store.order(id: orderID)?.status == .paid })
        let png = try Base64.decodeBytes(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
        let providerID = try await fixture.sandbox.wechatV3.raiseComplaint(
            .init(outTradeNo: made.outTradeNo, detail: "x", problemType: "REFUND", applyRefundAmount: 100, images: [png]))
        // A sub-merchant's complaints are read by the job (its notifications go to the service provider's URL): read this one now.
        let ledger = fixture.server.app.ledger
        let adapter = try #require(ledger.adapters.complaintHandling(provider: "wechat.v3", merchantID: SandboxMode.subMerchantWeChatID))
        return try await ledger.complaints.sync(providerID, via: adapter).complaint.id
    }

    /// A receiver of its own (a merchant, by a fresh mchid), added by the platform; its id.
    func receiver() async throws -> String {
        try await platform("POST", "/v1/receivers", json: Self.receiverBody)["id"] as? String ?? ""
    }

    /// A body `POST /v1/receivers` accepts: a merchant of its own (a fresh mchid).
    static var receiverBody: [String: Any] {
        [
            "provider": "wechat", "type": "MERCHANT_ID", "account": "19" + String(UInt64.random(in: 10_000_000...99_999_999)),
            "name": "深圳市某某餐饮有限公司", "relation_type": "STORE",
        ]
    }

    /// The direct merchant's order of 6.00, placed for sharing, paid through WeChat Pay v3, and a
    /// finished split of 1.00 of it to a receiver of its own.
    func split() async throws -> Made {
        var made = Made()
        let order = try await platform(
            "POST", "/v1/orders",
            json: ["items": [["label": "Latte", "amount": "6.00"]], "currency": "CNY", "description": "Latte", "profit_sharing": true])
        made.orderID = order["id"] as? String ?? ""
        made.secret = order["client_secret"] as? String ?? ""
        let started = try await platform("POST", "/v1/orders/\(made.orderID)/payments", json: ["method": "wechat.native", "api": "v3"])
        made.outTradeNo = started["out_trade_no"] as? String ?? ""
        try #require(await fixture.sandbox.wechatV3.pay(outTradeNo: made.outTradeNo, outcome: .success) == "SUCCESS")
        let orderID = made.orderID
        try #require(try await eventually { try await self.fixture.store.order(id: orderID)?.status == .paid })
        made.receiverID = try await receiver()
        await fixture.sandbox.wechatV3.setProfitSharingDelay(0)
        let split = try await platform(
            "POST", "/v1/orders/\(made.orderID)/splits",
            json: ["receivers": [["receiver": made.receiverID, "amount": 100, "description": "分成"]]])
        made.splitID = split["id"] as? String ?? ""
        // Finished at WeChat at once (the sandbox's delay is none), and recorded so.
        let ledger = fixture.server.app.ledger
        let stored = try #require(try await fixture.store.split(id: made.splitID))
        let adapter = try #require(ledger.adapters.splitting(.wechatV3))
        let progress = try #require(try await adapter.splitProgress(stored))
        try await ledger.splits.move(stored, progress)
        try #require(try await fixture.store.split(id: made.splitID)?.status == .finished)
        return made
    }

    /// A transfer of 5.00 to a payee (a body `POST /v1/transfers` accepts).
    static var transferBody: [String: Any] {
        [
            "provider": "wechat", "amount": 500, "currency": "CNY", "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", "remark": "奖励",
        ]
    }

    /// A dashboard session, signed in with the configured key (or one already over): its cookie value and CSRF token.
    func session(expired: Bool) async throws -> (id: String, csrf: String) {
        let id = SecureRandom.alphanumeric(count: 43)
        let csrf = SecureRandom.alphanumeric(count: 32)
        let now = Date()
        try await fixture.store.createDashboardSession(
            DashboardSessionRecord(idHash: DashboardSessions.hash(id), csrf: csrf, expires: now.addingTimeInterval(expired ? -60 : 3600)),
            now: now)
        return (id, csrf)
    }

    // MARK: Cells

    /// Every credential's request to `route`, each on state of its own.
    func row(_ route: String, index: Int) async -> [MatrixCell.Outcome] {
        var outcomes: [MatrixCell.Outcome] = []
        for credential in Credential.allCases {
            do {
                let made = try await make(Self.needs(route))
                let session = try await session(expired: credential == .expiredSession)
                let request = MatrixCell(world: self, route: route, credential: credential, made: made, session: session)
                    .request(address: "10.0.\(index).\(credential.rawValue + 1)")
                let response = await server.respond(request)
                var moved = false
                if route.hasPrefix("POST /notify/") {
                    moved = try await fixture.store.order(id: made.orderID)?.status != .pending
                }
                outcomes.append(
                    .init(
                        credential: credential, status: response.status, body: response.body, moved: moved,
                        location: response.headers["Location"]))
            } catch {
                Issue.record("\(route) as \(credential): \(error)")
                outcomes.append(.init(credential: credential, status: 0, body: [], moved: false))
            }
        }
        return outcomes
    }
}

import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Issue 58, item 7: coupon codes cannot be guessed through an order. Each code that is not the
/// merchant's is counted on the order by compare-and-set, logged (`coupon_refused`) and counted in
/// `/metrics` (`cashier_coupon_codes_refused_total`); after five, the order takes no coupon code at
/// all (409) — not even a right one, so the sixth guess learns nothing. The hosted checkout's
/// Apple Pay steps count on the same order.
@Suite struct CouponGuessTests {
    static func guess(_ world: MoneyWorld, _ id: String, _ secret: String, _ code: String) async throws -> MoneyWorld.Answer {
        try await world.call(
            "POST", "/v1/orders/\(id)/payments/applepay/update", key: world.keys.publishable,
            json: ["coupon_code": code, "client_secret": secret])
    }

    static func invalid(_ answer: MoneyWorld.Answer) -> Bool {
        answer.status == 200 && ((answer.object["errors"] as? [[String: Any]])?.first)?["code"] as? String == "couponCodeInvalid"
    }

    /// An order from the backend: its id and client secret.
    static func order(_ world: MoneyWorld) async throws -> (id: String, secret: String) {
        let created = try await world.call(
            "POST", "/v1/orders", json: ["items": [["label": "Latte", "amount": "30.00"]], "currency": "CNY", "description": "Latte"])
        try #require(created.status == 201)
        return (created.object["id"] as? String ?? "", created.object["client_secret"] as? String ?? "")
    }

    /// The refused codes the order's log holds.
    static func refusals(_ world: MoneyWorld, _ id: String) async throws -> Int {
        try await world.store.events(orderID: id).filter { $0.kind == .couponRefused }.count
    }

    /// `cashier_coupon_codes_refused_total`, summed over the instances.
    static func metric(_ world: MoneyWorld) async throws -> Int {
        var total = 0
        for index in world.servers.indices {
            let text = String(decoding: try await world.call("GET", "/metrics", via: index).body, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("cashier_coupon_codes_refused_total ") {
                total += Int(line.split(separator: " ").last ?? "") ?? 0
            }
        }
        return total
    }

    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func fiveWrongCodesThenTheOrderTakesNoMore(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend)
        let (id, secret) = try await Self.order(world)
        for guess in ["SUMMER", "WELCOME20", "FREE", "VIP", "XMAS"] {
            #expect(Self.invalid(try await Self.guess(world, id, secret, guess)), "\(guess)")
        }
        #expect(try await Self.refusals(world, id) == 5)
        #expect(try await Self.metric(world) == 5)
        // The sixth is refused unread, and so is the right code: nothing tells a guess from it.
        for code in ["SPRING", "WELCOME10"] {
            let refused = try await Self.guess(world, id, secret, code)
            #expect(refused.status == 409, "\(code): \(refused.status) \(refused.object)")
        }
        #expect(try await world.store.order(id: id)?.total.minorUnits == 3000)
        #expect(try await Self.refusals(world, id) == 5)
        // Another order is untouched: its right code takes 10% off.
        let (other, otherSecret) = try await Self.order(world)
        let good = try await Self.guess(world, other, otherSecret, "welcome10")
        #expect(good.status == 200 && (good.object["newTotal"] as? [String: Any])?["amount"] as? String == "27.00", "\(good.object)")
        await world.stop()
    }

    /// Twenty guesses at once, over every instance: exactly five are answered and logged.
    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func guessesAtOnceAreEachCounted(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend)
        let (id, secret) = try await Self.order(world)
        let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for index in 0..<20 { group.addTask { try await Self.guess(world, id, secret, "GUESS\(index)") } }
            return try await group.reduce(into: [MoneyWorld.Answer]()) { $0.append($1) }
        }
        #expect(answers.filter(Self.invalid).count == 5, "\(answers.map(\.status))")
        #expect(answers.filter { $0.status == 409 }.count == 15, "\(answers.map { "\($0.status) \($0.errorCode ?? "")" })")
        #expect(try await Self.refusals(world, id) == 5)
        #expect(try await Self.guess(world, id, secret, "WELCOME10").status == 409)
        await world.stop()
    }

    /// The checkout page's Apple Pay `update` step counts on the same order as the API.
    @Test func theCheckoutCountsOnTheSameOrder() async throws {
        let world = try await MoneyWorld(.sqlite)
        let (id, secret) = try await Self.order(world)
        for guess in ["A1", "A2", "A3"] { #expect(Self.invalid(try await Self.guess(world, id, secret, guess))) }
        for guess in ["B1", "B2"] {
            let answer = await world.servers[0].call(
                "POST", "/pay/\(id)/applepay/update", json: ["client_secret": secret, "coupon_code": guess])
            #expect(answer.status == 200 && answer.text.contains("couponCodeInvalid"), "\(answer.text)")
        }
        #expect(
            await world.servers[0].call("POST", "/pay/\(id)/applepay/update", json: ["client_secret": secret, "coupon_code": "B3"]).status
                == 409)
        #expect(try await Self.refusals(world, id) == 5)
        await world.stop()
    }
}

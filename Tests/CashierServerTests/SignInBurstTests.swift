import CashierHTTP
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Issue 58, item 5: dashboard sign-in takes each attempt from its address's allowance atomically,
/// before the key is read (on PostgreSQL under an advisory lock per address, across instances).
/// Forty wrong keys released at once from one browser: exactly five are checked; the rest, and then
/// even the right key, get 429 — the same answer whatever the key, so it says nothing about a guess.
/// Another browser behind the same proxy is not affected, and the right key clears its address's count.
@Suite struct SignInBurstTests {
    static func signIn(_ world: MoneyWorld, from address: String, key: String, via index: Int = 0) async -> HTTPServerResponse {
        await world.servers[index % world.servers.count].call(
            "POST", "/dashboard/login", headers: ["X-Forwarded-For": address], form: [("secret_key", key)])
    }

    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func fortyAtOnceAreFiveChecked(backend: MoneyWorld.Backend) async throws {
        let began = Date()
        let world = try await MoneyWorld(backend) { $0.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.1"]) }
        // Forty from each of three browsers at once (a race lost for one address is likelier found in three).
        let attackers = ["203.0.113.77", "203.0.113.78", "203.0.113.79"]
        let answers = await withTaskGroup(of: (String, HTTPServerResponse).self) { group in
            for index in 0..<120 {
                let from = attackers[index % 3]
                group.addTask {
                    (from, await Self.signIn(world, from: from, key: "sk_guess_\(index)_" + String(repeating: "x", count: 30), via: index))
                }
            }
            return await group.reduce(into: [(String, HTTPServerResponse)]()) { $0.append($1) }
        }
        for address in attackers {
            let statuses = answers.filter { $0.0 == address }.map(\.1.status)
            #expect(
                statuses.filter { $0 == 401 }.count == 5 && statuses.filter { $0 == 429 }.count == 35, "\(address): \(statuses.sorted())")
            #expect(try await world.store.signInFailures(source: address, since: began.addingTimeInterval(-60)) == 5)
        }
        let attacker = attackers[0]
        // The right key now: refused unread, on every instance, with the answer a wrong key gets.
        for index in world.servers.indices {
            let right = await Self.signIn(world, from: attacker, key: world.keys.secret, via: index)
            let wrong = await Self.signIn(world, from: attacker, key: "sk_guess_again_" + String(repeating: "y", count: 30), via: index)
            #expect(right.status == 429 && right.headers["Retry-After"] == "900" && right.headers["Set-Cookie"] == nil)
            #expect(right.status == wrong.status && right.body == wrong.body)
        }
        #expect(try await world.store.signInFailures(source: attacker, since: began.addingTimeInterval(-60)) == 5)
        // Another browser behind the same proxy signs in.
        #expect(await Self.signIn(world, from: "198.51.100.77", key: world.keys.secret).status == 303)
        await world.stop()
    }

    /// Four wrong keys, then the right one: signed in, and the address starts again with five.
    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func theRightKeyClearsItsAddressesCount(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.1"]) }
        let staff = "192.0.2.55"
        let wrong = "sk_typo_" + String(repeating: "z", count: 32)
        for index in 0..<4 { #expect(await Self.signIn(world, from: staff, key: wrong, via: index).status == 401) }
        #expect(await Self.signIn(world, from: staff, key: world.keys.secret).status == 303)
        for index in 0..<5 { #expect(await Self.signIn(world, from: staff, key: wrong, via: index).status == 401) }
        #expect(await Self.signIn(world, from: staff, key: world.keys.secret).status == 429)
        await world.stop()
    }
}

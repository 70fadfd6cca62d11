import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Synchronization
import Testing

@testable import ApplePay

/// The signer's chain is validated once per leaf certificate, then taken from a bounded cache
/// that is used only while the clock is inside every certificate's validity.
@Suite struct ChainCacheTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let now = Mutex(Date())
        func read() -> Date { now.withLock { $0 } }
        func set(_ date: Date) { now.withLock { $0 = date } }
    }

    static let total = Money(minorUnits: 12_75, currency: .cny)

    @Test func validatedOncePerLeafAndExpiringWithIt() throws {
        let ca = try ApplePayTestCA()
        let merchant = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.cache")
        let minter = ApplePayTokenMinter(ca: ca)
        let clock = Clock()
        let verifier = try ApplePay.TokenVerifier(trustAnchors: [ca.root], clock: { clock.read() })
        for _ in 0..<5 {
            _ = try verifier.verify(try minter.mint(for: merchant, amount: Self.total))
        }
        #expect(verifier.chainValidations == 1 && verifier.cachedChains == 1)

        // A tampered token with the same leaf still fails on its signature, cache or not.
        var tampered = try minter.mint(for: merchant, amount: Self.total)
        tampered.header.transactionId = String(repeating: "ab", count: 32)
        let signature = #expect(throws: PaymentError.self) { try verifier.verify(tampered) }
        #expect(signature?.details == ApplePay.TokenCheck.signature.rawValue)

        // Past the leaf's notAfter, a token signed then is refused by the chain, not passed by the cache.
        let later = ca.leaf.notValidAfter.addingTimeInterval(60)
        clock.set(later)
        let expired = #expect(throws: PaymentError.self) {
            try verifier.verify(try minter.mint(for: merchant, amount: Self.total, signedAt: later))
        }
        #expect(expired?.details == ApplePay.TokenCheck.chain.rawValue)
        #expect(verifier.chainValidations == 2)

        // Back inside the validity: the cached chain serves again.
        clock.set(Date())
        _ = try verifier.verify(try minter.mint(for: merchant, amount: Self.total))
        #expect(verifier.chainValidations == 2)
    }

    @Test func boundedAcrossLeaves() throws {
        let authorities = try (0..<3).map { _ in try ApplePayTestCA() }
        let verifier = try ApplePay.TokenVerifier(trustAnchors: authorities.map(\.root), cacheLimit: 2)
        for ca in authorities {
            let merchant = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.cache")
            _ = try verifier.verify(try ApplePayTokenMinter(ca: ca).mint(for: merchant, amount: Self.total))
            #expect(verifier.cachedChains <= 2)
        }
        #expect(verifier.chainValidations == 3)
    }
}

import Foundation
import Testing

@testable import CashierServer

/// The webhook job's wake-up: a ring is never lost, a wait without one ends at its timeout, and
/// a cancelled waiter returns at once.
@Suite struct DoorbellTests {
    @Test func aRingBeforeTheWaitIsKeptAndAWaitWithoutOneTimesOut() async throws {
        let doorbell = Doorbell()
        let clock = ContinuousClock()
        doorbell.ring()
        doorbell.ring()  // rings while nobody waits count once
        var start = clock.now
        await doorbell.wait(upTo: .seconds(30))
        #expect(clock.now - start < .seconds(10))
        start = clock.now
        await doorbell.wait(upTo: .milliseconds(200))
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test func aRingWakesTheWaiterAndCancellingReturnsAtOnce() async throws {
        let doorbell = Doorbell()
        let clock = ContinuousClock()
        let start = clock.now
        let waiter = Task { await doorbell.wait(upTo: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        doorbell.ring()
        await waiter.value
        #expect(clock.now - start < .seconds(30))

        let cancelled = Task { await doorbell.wait(upTo: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        await cancelled.value
        #expect(clock.now - start < .seconds(30))
    }
}

import Foundation
import Testing

@testable import CashierServer

/// The webhook job's wake-up: a ring is never lost, a wait without one ends at its timeout, and
/// a cancelled waiter returns at once. Each wait says why it ended, so nothing here depends on
/// how fast a loaded machine runs (the long timeouts only bound a broken doorbell).
@Suite struct DoorbellTests {
    @Test func aRingBeforeTheWaitIsKeptOnceAndAWaitWithoutOneTimesOut() async throws {
        let doorbell = Doorbell()
        doorbell.ring()
        doorbell.ring()  // rings while nobody waits count once
        #expect(await doorbell.wait(upTo: .seconds(600)) == .rung)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await doorbell.wait(upTo: .milliseconds(200)) == .timedOut)
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test func aRingWakesTheWaiterAndATimerNeverEndsALaterWait() async throws {
        let doorbell = Doorbell()
        // A first wait that times out leaves nothing behind for the next one.
        #expect(await doorbell.wait(upTo: .milliseconds(1)) == .timedOut)
        let waiter = Task { await doorbell.wait(upTo: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(50))
        doorbell.ring()
        #expect(await waiter.value == .rung)
    }

    @Test func cancellingTheWaiterEndsTheWait() async throws {
        let doorbell = Doorbell()
        let waiter = Task { await doorbell.wait(upTo: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        #expect(await waiter.value == .cancelled)
        // Cancelled before it began waiting: it does not wait either.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await doorbell.wait(upTo: .seconds(600))
        }
        #expect(await early.value == .cancelled)
    }
}

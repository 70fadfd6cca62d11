import Foundation
import TestSupport
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
        let waits = Tally()
        let doorbell = Doorbell { waits.add() }
        // A first wait that times out leaves nothing behind for the next one.
        #expect(await doorbell.wait(upTo: .milliseconds(1)) == .timedOut)
        let waiter = Task { await doorbell.wait(upTo: .seconds(600)) }
        #expect(await waits.wait(atLeast: 2))  // the second wait has begun: the ring wakes it, it is not kept for it
        doorbell.ring()
        #expect(await waiter.value == .rung)
    }

    @Test func cancellingTheWaiterEndsTheWait() async throws {
        let waiting = Signal()
        let doorbell = Doorbell { waiting.fire() }
        let waiter = Task { await doorbell.wait(upTo: .seconds(600)) }
        #expect(await waiting.wait())  // cancelled while it waits, not before
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

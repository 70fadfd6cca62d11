import Cashier
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierServer

/// The questions about payments in doubt: one at a time per payment, and after one that decided
/// nothing (the payment still in doubt, or no answer at all) none until the interval has passed.
@Suite struct InFlightQueriesTests {
    struct Unanswered: Error {}

    final class Counts: Sendable {
        let asked = Mutex<[String: Int]>([:])
    }

    @Test func aQuestionThatDecidedNothingWaitsForTheInterval() async throws {
        let clock = ManualClock(Date())
        let queries = InFlightQueries(interval: 2, clock: clock)
        let asked = Atomic<Int>(0)
        let undecided: @Sendable () async throws -> StoredOrder? = {
            asked.add(1, ordering: .relaxed)
            return nil
        }
        #expect(try await queries.answer(for: "pay_1", undecided) == nil)
        #expect(try await queries.answer(for: "pay_1", undecided) == nil)
        #expect(asked.load(ordering: .relaxed) == 1)
        // Another payment is its own question.
        #expect(try await queries.answer(for: "pay_2", undecided) == nil)
        #expect(asked.load(ordering: .relaxed) == 2)
        clock.advance(by: 1.9)
        _ = try await queries.answer(for: "pay_1", undecided)
        #expect(asked.load(ordering: .relaxed) == 2)
        clock.advance(by: 0.1)
        _ = try await queries.answer(for: "pay_1", undecided)
        #expect(asked.load(ordering: .relaxed) == 3)
    }

    @Test func noAnswerWaitsTooAndADecisionDoesNot() async throws {
        let clock = ManualClock(Date())
        let queries = InFlightQueries(interval: 2, clock: clock)
        let asked = Atomic<Int>(0)
        await #expect(throws: Unanswered.self) {
            try await queries.answer(for: "pay_1") {
                asked.add(1, ordering: .relaxed)
                throw Unanswered()
            }
        }
        #expect(
            try await queries.answer(for: "pay_1") {
                asked.add(1, ordering: .relaxed)
                return .example
            } == nil)
        #expect(asked.load(ordering: .relaxed) == 1)
        clock.advance(by: 2)
        let decided: @Sendable () async throws -> StoredOrder? = {
            asked.add(1, ordering: .relaxed)
            return .example
        }
        #expect(try await queries.answer(for: "pay_1", decided)?.id == StoredOrder.example.id)
        #expect(try await queries.answer(for: "pay_1", decided)?.id == StoredOrder.example.id)
        #expect(asked.load(ordering: .relaxed) == 3)
    }

    @Test func anIntervalOfZeroAsksEveryTime() async throws {
        let queries = InFlightQueries(interval: 0, clock: ManualClock(Date()))
        let asked = Atomic<Int>(0)
        for _ in 0..<3 {
            _ = try await queries.answer(for: "pay_1") {
                asked.add(1, ordering: .relaxed)
                return nil
            }
        }
        #expect(asked.load(ordering: .relaxed) == 3)
    }

    /// Many reads at once about many payments, while the clock moves: each payment is asked about
    /// once per interval however the reads interleave.
    @Test func readsAtOnceAskEachPaymentOnceAnInterval() async throws {
        let clock = ManualClock(Date())
        let queries = InFlightQueries(interval: 10, clock: clock)
        let counts = Counts()
        let readers = Tally()  // readers come to ask
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reader in 0..<64 {
                group.addTask {
                    let payment = "pay_\(reader % 4)"
                    readers.add()
                    _ = try await queries.answer(for: payment) {
                        counts.asked.withLock { $0[payment, default: 0] += 1 }
                        await readers.wait(atLeast: 64)  // asking until every reader has come: they find it in flight
                        return nil
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.asked.withLock { $0 } == ["pay_0": 1, "pay_1": 1, "pay_2": 1, "pay_3": 1])
    }
}

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CashierCurl

/// The threads blocking transfers run on: every transfer has a thread to itself (a slow one holds
/// up no other), a finished thread takes the next transfer, and an idle one ends.
@Suite(.timeLimit(.minutes(1))) struct TransferThreadsTests {
    /// Fifty jobs that each wait until all fifty have started: finished only if none waited for a
    /// thread another job held (otherwise they wait for each other until the time limit).
    @Test func everyJobRunsAtOnce() async {
        let threads = TransferThreads(name: "test-transfers")
        let started = Atomic<Int>(0)
        let everyoneIn = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = Atomic<Int>(0)
            for _ in 0..<50 {
                threads.run {
                    if started.add(1, ordering: .relaxed).newValue == 50 {
                        for _ in 0..<50 { everyoneIn.signal() }
                    }
                    everyoneIn.wait()
                    if finished.add(1, ordering: .relaxed).newValue == 50 { continuation.resume() }
                }
            }
        }
        #expect(started.load(ordering: .relaxed) == 50)
    }

    /// One job after another runs on the thread the first one left idle.
    @Test func aFinishedThreadTakesTheNextJob() async {
        let threads = TransferThreads(name: "test-transfers")
        func threadOfNextJob() async -> UInt {
            await withCheckedContinuation { continuation in
                threads.run { continuation.resume(returning: UInt(bitPattern: Int(bitPattern: pthread_self()))) }
            }
        }
        let first = await threadOfNextJob()
        // The thread counts itself idle just after its job returns.
        for _ in 0..<1_000 where threads.idleCount == 0 { try? await Task.sleep(for: .milliseconds(1)) }
        #expect(threads.idleCount == 1)
        let second = await threadOfNextJob()
        #expect(first == second)
    }

    /// An idle thread ends after its timeout; work handed out afterwards gets a new one.
    @Test func anIdleThreadEnds() async {
        let threads = TransferThreads(name: "test-transfers", idleTimeout: .milliseconds(20))
        await withCheckedContinuation { continuation in threads.run { continuation.resume() } }
        // Idle once its job returned (aFinishedThreadTakesTheNextJob shows it waits there), then gone.
        for _ in 0..<2_000 where threads.idleCount > 0 { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(threads.idleCount == 0)
        await withCheckedContinuation { continuation in threads.run { continuation.resume() } }
    }
}

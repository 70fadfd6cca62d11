import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierStore

@Suite struct ConnectionPoolTests {
    final class Fake: Sendable {
        let number: Int
        let healthy = Atomic<Bool>(true)
        init(number: Int) { self.number = number }
    }

    /// What the callers in a test share.
    final class Shared: Sendable {
        let inUse = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let unfair = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
        let attempts = Atomic<Int>(0)
        let served = Mutex<[Int]>([])
    }

    /// Lets the pool's own hook reach the pool.
    final class PoolBox: @unchecked Sendable {
        var pool: ConnectionPool<Fake>?
    }

    /// Opens numbered fakes, counting them.
    final class Opener: Sendable {
        let opened = Atomic<Int>(0)

        func open() -> Fake { Fake(number: opened.wrappingAdd(1, ordering: .relaxed).newValue) }
    }

    /// A pool of `size` opened by `opener`; `joined` counts the callers that have joined its queue.
    private func pool(size: Int, _ opener: Opener, joined: Tally = Tally()) -> ConnectionPool<Fake> {
        ConnectionPool(
            size: size, connect: { opener.open() }, isHealthy: { $0.healthy.load(ordering: .relaxed) }, joined: { joined.add() })
    }

    @Test(.timeLimit(.minutes(2))) func manyCallersAtOnceNeverHoldMoreThanTheSizeAndNoConnectionIdlesWhileOneWaits() async throws {
        for size in [1, 3] {
            let opener = Opener()
            let pool = pool(size: size, opener)
            let shared = Shared()
            // A connection idle while a caller waits is the state a race between deciding to
            // wait and joining the queue leaves behind; it must never be seen.
            let watcher = Task.detached {
                while !shared.done.load(ordering: .relaxed) {
                    let counts = pool.counts
                    if counts.idle > 0 && counts.waiting > 0 { shared.unfair.add(1, ordering: .relaxed) }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        for round in 0..<1500 {
                            let connection = try await pool.acquire()
                            let now = shared.inUse.wrappingAdd(1, ordering: .relaxed).newValue
                            shared.most.max(now, ordering: .relaxed)
                            if round % 7 == 0 { await Task.yield() }
                            shared.inUse.subtract(1, ordering: .relaxed)
                            pool.release(connection)
                        }
                    }
                }
                try await group.waitForAll()
            }
            shared.done.store(true, ordering: .relaxed)
            await watcher.value
            #expect(shared.most.load(ordering: .relaxed) <= size)
            #expect(opener.opened.load(ordering: .relaxed) <= size)
            #expect(shared.unfair.load(ordering: .relaxed) == 0, "a connection sat idle while a caller waited")
            let counts = pool.counts
            #expect(counts.waiting == 0 && counts.idle == counts.open && counts.open <= size)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aConnectionGivenBackJustAsACallerFindsNoneFreeGoesToThatCaller() async throws {
        // The caller found nothing free; the only connection comes back before it joins the
        // queue, and nobody else will ever give one back. Deciding and joining in two steps
        // would leave it idle and the caller waiting forever.
        let holder = Mutex<Fake?>(nil)
        let box = PoolBox()
        let pool = ConnectionPool<Fake>(
            size: 1, connect: { Fake(number: 1) }, isHealthy: { _ in true },
            beforeWaiting: {
                if let held = holder.withLock({ value -> Fake? in
                    defer { value = nil }
                    return value
                }) {
                    box.pool?.release(held)
                }
            })
        box.pool = pool
        let held = try await pool.acquire()
        holder.withLock { $0 = held }
        let served = Signal()
        let caller = Task {
            let connection = try await pool.acquire()
            served.fire()
            return connection
        }
        // Served at once; ten seconds bound only a caller left waiting.
        let answered = await served.wait(within: .seconds(10))
        if !answered { pool.release(Fake(number: 0)) }  // lets the stuck caller end
        _ = try? await caller.value
        #expect(answered, "the caller was left waiting with the connection idle")
        #expect(!answered || pool.counts == (open: 1, idle: 0, waiting: 0))
    }

    @Test(.timeLimit(.minutes(1))) func waitersAreServedInTheOrderTheyCame() async throws {
        let joined = Tally()
        let pool = pool(size: 1, Opener(), joined: joined)
        let held = try await pool.acquire()
        let shared = Shared()
        var waiters: [Task<Void, any Error>] = []
        for number in 1...5 {
            waiters.append(
                Task {
                    let connection = try await pool.acquire()
                    shared.served.withLock { $0.append(number) }
                    pool.release(connection)
                })
            #expect(await joined.wait(atLeast: number))
            #expect(pool.counts.waiting == number)
        }
        pool.release(held)
        for waiter in waiters { try await waiter.value }
        #expect(shared.served.withLock { $0 } == [1, 2, 3, 4, 5])
        #expect(pool.counts == (open: 1, idle: 1, waiting: 0))
    }

    @Test(.timeLimit(.minutes(1))) func aBrokenConnectionIsDroppedAndTheNextCallerOpensAnother() async throws {
        let opener = Opener()
        let joined = Tally()
        let pool = pool(size: 1, opener, joined: joined)
        let first = try await pool.acquire()
        let waiter = Task { try await pool.acquire() }
        #expect(await joined.wait(atLeast: 1))
        #expect(pool.counts.waiting == 1)
        first.healthy.store(false, ordering: .relaxed)
        pool.release(first)
        let second = try await waiter.value
        #expect(second.number == 2 && opener.opened.load(ordering: .relaxed) == 2)
        #expect(pool.counts == (open: 1, idle: 0, waiting: 0))
        // With nobody waiting, a broken one is simply dropped.
        second.healthy.store(false, ordering: .relaxed)
        pool.release(second)
        #expect(pool.counts == (open: 0, idle: 0, waiting: 0))
        #expect(try await pool.acquire().number == 3)
    }

    @Test(.timeLimit(.minutes(1))) func aFailedOpenPassesItsTurnToTheCallerWaiting() async throws {
        let (gate, opening) = AsyncStream<Void>.makeStream()
        let shared = Shared()
        let firstOpening = Signal()
        let joined = Tally()
        let pool = ConnectionPool<Fake>(
            size: 1,
            connect: {
                let number = shared.attempts.wrappingAdd(1, ordering: .relaxed).newValue
                if number == 1 {
                    firstOpening.fire()
                    for await _ in gate { break }  // held open until the second caller waits
                    throw CocoaError(.fileReadUnknown)
                }
                return Fake(number: number)
            }, isHealthy: { $0.healthy.load(ordering: .relaxed) }, joined: { joined.add() })
        let first = Task { try await pool.acquire() }
        #expect(await firstOpening.wait())
        #expect(pool.counts.open == 1)
        let second = Task { try await pool.acquire() }
        #expect(await joined.wait(atLeast: 1))
        #expect(pool.counts.waiting == 1)
        opening.yield()
        await #expect(throws: CocoaError.self) { try await first.value }
        #expect(try await second.value.number == 2)
        #expect(pool.counts == (open: 1, idle: 0, waiting: 0))
        // And with nobody waiting, a failed open gives its slot back.
        let lone = ConnectionPool<Fake>(size: 1, connect: { throw CocoaError(.fileReadUnknown) }, isHealthy: { _ in true })
        await #expect(throws: CocoaError.self) { try await lone.acquire() }
        #expect(lone.counts == (open: 0, idle: 0, waiting: 0))
    }

    @Test(.timeLimit(.minutes(1))) func closeFailsWaitersAndWaitsForTheConnectionsInUseThenDropsThem() async throws {
        let joined = Tally()
        let pool = pool(size: 2, Opener(), joined: joined)
        let first = try await pool.acquire()
        var second: Fake? = try await pool.acquire()
        let waiter = Task { try await pool.acquire() }
        #expect(await joined.wait(atLeast: 1))
        #expect(pool.counts.waiting == 1)
        let closed = Atomic<Bool>(false)
        let closing = Task {
            await pool.close()
            closed.store(true, ordering: .relaxed)
        }
        let refused = await #expect(throws: StoreError.self) { try await waiter.value }
        #expect(refused?.code == .unavailable)
        // A connection given back after close() is dropped, not kept for a later caller.
        weak let dropped = second
        pool.release(second!)
        second = nil
        #expect(dropped == nil, "a connection given back after close() was kept")
        #expect(pool.counts == (open: 1, idle: 0, waiting: 0))
        try await Task.sleep(for: .milliseconds(50))
        let returnedEarly = closed.load(ordering: .relaxed)
        #expect(!returnedEarly, "close() returned while a connection was still in use")
        pool.release(first)
        await closing.value
        #expect(pool.counts == (open: 0, idle: 0, waiting: 0))
        let later = await #expect(throws: StoreError.self) { try await pool.acquire() }
        #expect(later?.code == .unavailable)
        await pool.close()  // a second close() returns at once
    }

    @Test(.timeLimit(.minutes(1))) func closeDropsTheIdleConnectionsAtOnce() async throws {
        let pool = pool(size: 2, Opener())
        var idle: Fake? = try await pool.acquire()
        weak let dropped = idle
        pool.release(idle!)
        idle = nil
        #expect(dropped != nil, "the pool keeps a connection given back")
        await pool.close()
        #expect(dropped == nil, "close() kept an idle connection")
        #expect(pool.counts == (open: 0, idle: 0, waiting: 0))
    }
}

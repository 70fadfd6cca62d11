import Dispatch
import Foundation
import Synchronization

/// Group commit: writer connections of their own, each on a thread of its own, take the
/// transactions callers queued while they were busy and run them as one database transaction,
/// each inside its own savepoint, made durable by one `COMMIT` (one fsync, one WAL flush). No
/// caller hears back before its change is committed, and a change that fails is rolled back alone.
///
/// ``SQLiteOrderStore`` has one writer (SQLite has one writer at a time anyway), which also keeps
/// SQLite's fsync off Swift's cooperative threads; ``PostgresOrderStore`` has two per instance.
///
/// A thread of the writer's own, the finisher, tells the callers: a writer hands it a committed
/// batch's results and goes on to the next batch at once, so what the callers do with their
/// answers (a notification's connection resumed, a task's continuation) is not time the next
/// batch waits for, and a caller slow with its answer does not hold up everyone else's commits.
final class GroupCommitWriter<Connection: GroupCommitConnection & SendableMetatype>: Sendable {
    /// One queued transaction: `run` executes it inside the batch under the savepoint numbered
    /// by its place, and returns how to finish it once the batch's commit has (or has not)
    /// succeeded; `fail` finishes it unrun.
    struct Job: Sendable {
        let run: @Sendable (Connection, _ place: Int) -> @Sendable ((any Error)?) -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// What the threads share with the callers (not the writer itself, so its deinit can stop them).
    final class Shared: Sendable {
        let queue = Mutex<(jobs: [Job], stopped: Bool)>(([], false))
        let wake = DispatchSemaphore(value: 0)
        /// Committed (or failed) batches' finishes, for the finisher; and the writer threads
        /// still running (the finisher stops after the last, once it has told every caller).
        let finished = Mutex<(batches: [Finished], writers: Int)>(([], 0))
        let finisherWake = DispatchSemaphore(value: 0)
        /// Once every writer has closed its connection and the finisher has told every caller.
        let exit = OneTimeEvent()
        /// Batches committed so far.
        let commits = Atomic<Int>(0)
        /// Told the number waiting each time a transaction is queued (``GroupCommitWriter/onQueued``).
        let queued = Mutex<(@Sendable (Int) -> Void)?>(nil)
        let maximumBatch: Int
        let connect: @Sendable () throws -> Connection

        init(maximumBatch: Int, connect: @escaping @Sendable () throws -> Connection) {
            self.maximumBatch = maximumBatch
            self.connect = connect
        }
    }

    /// One batch's callers, to be told how its commit went.
    struct Finished: Sendable {
        let finishes: [@Sendable ((any Error)?) -> Void]
        let commitError: (any Error)?
    }

    private let shared: Shared
    private let threads: Int

    /// Opens `threads` connections with `connect` (again whenever one is found dropped) and
    /// starts a thread for each.
    /// - Parameter maximumBatch: the most transactions one commit carries.
    init(name: String, threads: Int = 1, maximumBatch: Int, connect: @escaping @Sendable () throws -> Connection) throws {
        let shared = Shared(maximumBatch: maximumBatch, connect: connect)
        self.shared = shared
        self.threads = max(1, threads)
        let seats = try (0..<self.threads).map { _ in ConnectionSeat(try connect()) }
        shared.finished.withLock { $0.writers = seats.count }
        let finisher = Thread { Self.finish(shared) }
        finisher.name = "\(name)-finisher"
        finisher.start()
        for (index, seat) in seats.enumerated() {
            let thread = Thread {
                Self.loop(shared, seat)
                seat.connection.withLock { $0 = nil }  // closed here, not whenever the thread is freed
                shared.finished.withLock { $0.writers -= 1 }
                shared.finisherWake.signal()
            }
            thread.name = self.threads == 1 ? name : "\(name)-\(index)"
            thread.start()
        }
    }

    /// How many batches have been committed.
    var commitCount: Int { shared.commits.load(ordering: .relaxed) }

    /// Transactions waiting for a writer.
    var queuedCount: Int { shared.queue.withLock { $0.jobs.count } }

    /// Told how many transactions wait each time one is queued, on the caller's thread: a test
    /// waits for this instead of polling ``queuedCount``.
    var onQueued: (@Sendable (Int) -> Void)? {
        get { shared.queued.withLock { $0 } }
        set { shared.queued.withLock { $0 = newValue } }
    }

    deinit { askToStop() }

    /// Takes no more transactions, commits those already queued, and returns once every caller
    /// has been told and every writer connection is closed. Later ones fail as unavailable.
    func stop() async {
        askToStop()
        await shared.exit.wait()
    }

    /// Takes no more transactions and wakes every writer thread to commit what is queued and end.
    private func askToStop() {
        shared.queue.withLock { $0.stopped = true }
        for _ in 0..<threads { shared.wake.signal() }
    }

    /// Runs `body` in the next batch; returns once the batch is committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in submit(body) { continuation.resume(with: $0) } }
    }

    /// Runs `body` in the next batch and calls `done` once with its result: on the finisher's
    /// thread once the batch is committed (or failed), or at once when the writer is stopped.
    func submit<T: Sendable>(
        _ body: @escaping @Sendable (Connection) throws -> T, then done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let job = Job(
            run: { connection, place in
                let outcome: Result<T, any Error>
                do {
                    try connection.openSavepoint(place)
                    do {
                        outcome = .success(try body(connection))
                        try connection.releaseSavepoint(place)
                    } catch {
                        connection.rollbackToSavepoint(place)
                        throw error
                    }
                } catch {
                    return { _ in done(.failure(error)) }
                }
                return { commitError in done(commitError.map { .failure($0) } ?? outcome) }
            },
            fail: { done(.failure($0)) })
        let waiting = shared.queue.withLock { queue -> Int? in
            guard !queue.stopped else { return nil }
            queue.jobs.append(job)
            return queue.jobs.count
        }
        guard let waiting else {
            job.fail(StoreError(.unavailable, "the store is closed"))
            return
        }
        shared.queued.withLock { $0 }?(waiting)
        shared.wake.signal()
    }

    private static func loop(_ shared: Shared, _ seat: ConnectionSeat<Connection>) {
        while true {
            shared.wake.wait()
            let (jobs, stopped) = shared.queue.withLock { queue in
                let taken = Array(queue.jobs.prefix(shared.maximumBatch))
                queue.jobs.removeFirst(taken.count)
                if !queue.jobs.isEmpty { shared.wake.signal() }  // the rest go to another writer, or the next batch
                return (taken, queue.stopped)
            }
            if jobs.isEmpty {
                if stopped { return }
                continue
            }
            seat.connection.withLock { seated in
                let connection: Connection
                if let current = seated, current.isHealthy {
                    connection = current
                } else {
                    // Dropped (a server restart, a network cut): a new session, or the batch fails
                    // as unavailable and its callers try again after a pause.
                    do {
                        connection = try shared.connect()
                        seated = connection
                    } catch {
                        for job in jobs { job.fail(error) }
                        return
                    }
                }
                commit(jobs, connection, shared)
            }
        }
    }

    private static func commit(_ jobs: [Job], _ connection: Connection, _ shared: Shared) {
        do {
            try connection.beginBatch()
        } catch {
            for job in jobs { job.fail(error) }
            return
        }
        let finishes = jobs.enumerated().map { place, job in job.run(connection, place) }
        var commitError: (any Error)?
        do {
            try connection.commitBatch()
        } catch {
            connection.rollbackBatch()
            commitError = error
        }
        if commitError == nil { shared.commits.add(1, ordering: .relaxed) }
        shared.finished.withLock { $0.batches.append(Finished(finishes: finishes, commitError: commitError)) }
        shared.finisherWake.signal()
    }

    /// The finisher: tells each committed batch's callers, in the order the batches committed,
    /// until the last writer thread has stopped and every batch it committed has been told.
    private static func finish(_ shared: Shared) {
        while true {
            shared.finisherWake.wait()
            let (batches, writers) = shared.finished.withLock { finished in
                defer { finished.batches.removeAll(keepingCapacity: true) }
                return (finished.batches, finished.writers)
            }
            for batch in batches {
                for finish in batch.finishes { finish(batch.commitError) }
            }
            if batches.isEmpty && writers == 0 {
                shared.exit.finish()
                return
            }
        }
    }
}

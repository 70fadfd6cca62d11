import Dispatch
import Foundation
import Synchronization

/// Group commit for ``SQLiteOrderStore``: one thread owns the write connection; transactions
/// that callers queue while a commit is in progress are run together in the next transaction,
/// each inside its own savepoint, and made durable by one `COMMIT` (one fsync). No caller hears
/// back before its change is on disk, and a change that fails is rolled back alone.
///
/// The thread also keeps SQLite's fsync off Swift's cooperative threads.
final class SQLiteWriter: Sendable {
    /// One queued transaction: `run` executes it inside the batch and returns how to finish it
    /// once the batch's commit has (or has not) reached the disk; `fail` finishes it unrun.
    struct Job: Sendable {
        let run: @Sendable (SQLiteConnection) -> @Sendable ((any Error)?) -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// What the thread shares with the callers (not the writer itself, so the writer's deinit can stop it).
    final class Shared: Sendable {
        let connection: Mutex<SQLiteConnection>
        let queue = Mutex<(jobs: [Job], stopped: Bool)>(([], false))
        let wake = DispatchSemaphore(value: 0)
        /// Batches committed so far.
        let commits = Atomic<Int>(0)

        init(connection: consuming sending SQLiteConnection) {
            self.connection = Mutex(connection)
        }
    }

    /// The most transactions one commit carries.
    static let maximumBatch = 256

    private let shared: Shared

    init(connection: consuming sending SQLiteConnection, name: String) {
        let shared = Shared(connection: connection)
        self.shared = shared
        let thread = Thread { Self.loop(shared) }
        thread.name = name
        thread.start()
    }

    /// How many batches have been committed (each one fsync).
    var commitCount: Int { shared.commits.load(ordering: .relaxed) }

    /// Transactions waiting for the next batch.
    var queuedCount: Int { shared.queue.withLock { $0.jobs.count } }

    deinit {
        shared.queue.withLock { $0.stopped = true }
        shared.wake.signal()
    }

    /// Runs `body` in the next batch; returns once the batch is committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                run: { connection in
                    let outcome: Result<T, any Error>
                    do {
                        try connection.query("SAVEPOINT job", [])
                        do {
                            outcome = .success(try body(connection))
                            try connection.query("RELEASE job", [])
                        } catch {
                            try? connection.execute("ROLLBACK TO job")
                            try? connection.execute("RELEASE job")
                            throw error
                        }
                    } catch {
                        return { _ in continuation.resume(throwing: error) }
                    }
                    return { commitError in continuation.resume(with: commitError.map { .failure($0) } ?? outcome) }
                },
                fail: { continuation.resume(throwing: $0) })
            let accepted = shared.queue.withLock { queue in
                guard !queue.stopped else { return false }
                queue.jobs.append(job)
                return true
            }
            guard accepted else {
                job.fail(StoreError(.unavailable, "the store is closed"))
                return
            }
            shared.wake.signal()
        }
    }

    private static func loop(_ shared: Shared) {
        while true {
            shared.wake.wait()
            let (jobs, stopped) = shared.queue.withLock { queue in
                let taken = Array(queue.jobs.prefix(maximumBatch))
                queue.jobs.removeFirst(taken.count)
                if !queue.jobs.isEmpty { shared.wake.signal() }  // the rest go in the next batch
                return (taken, queue.stopped)
            }
            if jobs.isEmpty {
                if stopped { return }
                continue
            }
            shared.connection.withLock { connection in commit(jobs, connection, shared) }
        }
    }

    private static func commit(_ jobs: [Job], _ connection: SQLiteConnection, _ shared: Shared) {
        do {
            try connection.query("BEGIN IMMEDIATE", [])
        } catch {
            for job in jobs { job.fail(error) }
            return
        }
        let finishes = jobs.map { $0.run(connection) }
        var commitError: (any Error)?
        do {
            try connection.query("COMMIT", [])
        } catch {
            try? connection.execute("ROLLBACK")
            commitError = error
        }
        if commitError == nil { shared.commits.add(1, ordering: .relaxed) }
        for finish in finishes { finish(commitError) }
    }
}

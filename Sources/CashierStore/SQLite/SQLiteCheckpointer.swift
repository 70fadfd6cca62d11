import Dispatch
import Foundation
import Synchronization

/// Checkpoints a SQLite database's write-ahead log on a thread of its own, so that the writer
/// does not: copying the WAL's pages back into the database file and its `fsync` used to run on
/// the writer's thread after every thousand pages (SQLite's automatic checkpoint) — about a
/// tenth of that thread's time under a stream of notifications, and the longest pauses its
/// callers saw: every transaction queued behind that commit waited for the copy and its fsync.
///
/// The writer's connection tells it how long the WAL is after each commit
/// (``SQLiteConnection/checkpointElsewhere(_:)``). Every `wakePages` more pages wake the
/// checkpointer, which runs a passive checkpoint (it never waits for, or blocks, the writer or a
/// reader) on its own connection. Durability does not move: a commit is durable once its WAL
/// frames are synced, before any checkpoint.
///
/// A checkpoint beside a writer that keeps committing never catches up with the end of the WAL,
/// and SQLite starts the WAL over only after one that does; so past `writerPages` the writer
/// checkpoints itself (what is left: the checkpointer has copied most of it), as SQLite's own
/// automatic checkpoint would, and the WAL stays bounded however busy the store is.
final class SQLiteCheckpointer: Sendable {
    /// SQLite's own automatic checkpoint threshold.
    static let defaultWakePages = 1_000
    /// About 40 MB of 4 KiB pages.
    static let defaultWriterPages = 10_000

    let wakePages: Int
    let writerPages: Int

    private final class Shared: Sendable {
        let wake = DispatchSemaphore(value: 0)
        /// The WAL's length when the checkpointer was last woken; and whether it should stop.
        let state = Mutex<(wokenAt: Int, stopped: Bool)>((0, false))
        /// Passive checkpoints the checkpointer has run.
        let checkpoints = Atomic<Int>(0)
        /// Once the thread has closed its connection.
        let exit = OneTimeEvent()
    }

    private let shared = Shared()

    /// Opens a connection of its own to the database at `path` and starts its thread.
    init(path: String, wakePages: Int = defaultWakePages, writerPages: Int = defaultWriterPages) throws {
        self.wakePages = max(1, wakePages)
        self.writerPages = max(1, writerPages)
        let connection = try SQLiteConnection(path: path)
        // In WAL mode from the start (the writer's connection says so too): a connection that
        // has not read the database yet does not know its WAL, and checkpoints nothing.
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        let seat = ConnectionSeat(connection)  // used by the thread alone
        let shared = shared
        let thread = Thread {
            while true {
                shared.wake.wait()
                if shared.state.withLock({ $0.stopped }) { break }
                if seat.connection.withLock({ $0?.checkpointPassively() ?? false }) { shared.checkpoints.add(1, ordering: .relaxed) }
            }
            seat.connection.withLock { $0 = nil }
            shared.exit.finish()
        }
        thread.name = "cashier-sqlite-checkpointer"
        thread.start()
    }

    deinit { askToStop() }

    /// Stops the thread and returns once it has closed its connection.
    func stop() async {
        askToStop()
        await shared.exit.wait()
    }

    private func askToStop() {
        shared.state.withLock { $0.stopped = true }
        shared.wake.signal()
    }

    /// Checkpoints the checkpointer has run.
    var checkpointCount: Int { shared.checkpoints.load(ordering: .relaxed) }

    /// Called on the writer's thread after each commit with the WAL's length in pages: wakes the
    /// checkpointer every `wakePages` pages (counting again from the start when the WAL has been
    /// started over).
    /// - Returns: whether the writer should checkpoint now, itself (the WAL is `writerPages` long).
    func walCommitted(pages: Int) -> Bool {
        let wake = shared.state.withLock { state -> Bool in
            if pages < state.wokenAt { state.wokenAt = 0 }  // the WAL started over
            guard pages >= state.wokenAt + wakePages else { return false }
            state.wokenAt = pages
            return true
        }
        if wake { shared.wake.signal() }
        return pages >= writerPages
    }
}

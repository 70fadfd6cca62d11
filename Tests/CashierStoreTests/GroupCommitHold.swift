import Foundation
import Synchronization
import TestSupport

@testable import CashierStore

/// Holds a single-threaded ``GroupCommitWriter`` inside a transaction (which inserts `0` into
/// table `t`) until `queued` more are waiting behind it; returns once the writer is held, so
/// what is queued next cannot join the held batch. The writer tells how many wait each time
/// one is queued (``GroupCommitWriter/onQueued``): the held transaction, and the test, wait on that.
enum GroupCommitHold {
    /// The task holding the writer, and how many transactions wait behind it.
    struct Held {
        let task: Task<Void, any Error>
        let queued: Tally

        /// The held transaction's end (once `queued` were waiting, and its batch committed).
        var value: Void {
            get async throws { try await task.value }
        }
    }

    static func hold<Connection: GroupCommitConnection & SQLConnection & SendableMetatype>(
        _ writer: GroupCommitWriter<Connection>, until queued: Int
    ) async -> Held {
        let entered = Signal()
        let waiting = Tally()
        let task = Task {
            try await writer.write { connection in
                entered.fire()
                try connection.query("INSERT INTO t (n) VALUES (0)")
                waiting.waitBlocking(atLeast: queued)  // on the writer's thread: nothing else commits meanwhile
            }
        }
        await entered.wait()
        // The writer is held: from now on the queue only grows, and each arrival says how long it is.
        writer.onQueued = { waiting.raise(to: $0) }
        waiting.raise(to: writer.queuedCount)
        return Held(task: task, queued: waiting)
    }
}

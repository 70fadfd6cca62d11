import Foundation
import Synchronization

@testable import CashierStore

/// Holds a single-threaded ``GroupCommitWriter`` inside a transaction (which inserts `0` into
/// table `t`) until `queued` more are waiting behind it; returns once the writer is held, so
/// what is queued next cannot join the held batch.
enum GroupCommitHold {
    final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    static func hold<Connection: GroupCommitConnection & SQLConnection & SendableMetatype>(
        _ writer: GroupCommitWriter<Connection>, until queued: Int
    ) async
        -> Task<Void, any Error>
    {
        let entered = Flag()
        let task = Task {
            try await writer.write { connection in
                entered.raised.store(true, ordering: .sequentiallyConsistent)
                try connection.query("INSERT INTO t (n) VALUES (0)")
                while writer.queuedCount < queued { usleep(1000) }
            }
        }
        while !entered.raised.load(ordering: .sequentiallyConsistent) { try? await Task.sleep(for: .milliseconds(1)) }
        return task
    }
}

import Foundation

/// One hand-off to another app or SDK whose answer arrives later, through a delegate or a URL the
/// app is reopened with: ``wait(supersededWith:start:)`` begins it and suspends until
/// ``deliver(_:)``. A hand-off begun while another still waits answers the earlier one with
/// `superseded` (the payer started again); an answer with nothing waiting is dropped.
package final class WalletHandoff<Answer: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: CheckedContinuation<Answer, Never>?

    package init() {}

    /// Waits for the answer to what `start` begins; `start` runs once the hand-off is waiting, so
    /// an answer it delivers at once (the other app could not be opened) is not lost.
    package func wait(supersededWith superseded: Answer, start: () -> Void) async -> Answer {
        await withCheckedContinuation { continuation in
            let previous = lock.withLock {
                defer { waiting = continuation }
                return waiting
            }
            previous?.resume(returning: superseded)
            start()
        }
    }

    /// Answers the hand-off waiting, if any.
    package func deliver(_ answer: Answer) {
        let continuation = lock.withLock {
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume(returning: answer)
    }
}

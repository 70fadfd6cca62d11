import Cashier
import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM for the long-running commands (`serve`, `sandbox`): caught from
/// ``install()`` on, and waited for with ``wait()``. The first asks the command to stop cleanly;
/// a second, while it is stopping, ends the process at once (status 128 + the signal) — the
/// impatient get what a crash gives: nothing committed is lost, and what was in flight comes
/// back (a webhook when its claim ends, a notification when the provider sends it again).
///
/// With `CASHIER_EXIT_WITH_PARENT=1` in the environment (as `make test` sets it), the process that
/// started the command going away counts as the first signal: a test run that crashes must not
/// leave servers behind holding its output open.
package enum TerminationSignals {
    /// Whether the first signal came, and who waits for it.
    private static let state = Mutex<(signalled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    /// The signal sources while installed (kept alive: a released source stops delivering).
    private static let sources = Mutex<[SignalSource]>([])
    private static let watchingParent = Atomic<Bool>(false)

    /// A dispatch signal source, sendable to keep in ``sources``.
    private struct SignalSource: @unchecked Sendable {
        let number: Int32
        let source: any DispatchSourceSignal
    }

    /// Catches SIGINT and SIGTERM from now on (again only once). The ready file is written after
    /// this, so whoever reads it may signal at once and the command still stops cleanly.
    package static func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [source] in
                    // Signals that came before the handler ran arrive together: two mean two.
                    for _ in 0..<max(1, Int(source.data)) where !first() {
                        try? FileHandle.standardError.writeRetrying(Data("cashier: a second signal: stopped at once\n".utf8))
                        _exit(128 + number)
                    }
                }
                source.resume()
                sources.append(SignalSource(number: number, source: source))
            }
        }
        if ProcessInfo.processInfo.environment["CASHIER_EXIT_WITH_PARENT"] == "1",
            !watchingParent.exchange(true, ordering: .acquiringAndReleasing)
        {
            let parent = getppid()
            Thread.detachNewThread {
                while getppid() == parent { usleep(200_000) }
                _ = first()
            }
        }
    }

    /// Back to the signals' defaults (the command gave up before it was up), and forgets a
    /// signal that came meanwhile.
    package static func uninstall() {
        sources.withLock { sources in
            for installed in sources {
                installed.source.cancel()
                signal(installed.number, SIG_DFL)
            }
            sources.removeAll()
        }
        state.withLock { $0.signalled = false }
    }

    /// Returns once the first signal has come (at once if it came already), installing first.
    package static func wait() async {
        install()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let came = state.withLock { state in
                if !state.signalled { state.waiter = continuation }
                return state.signalled
            }
            if came { continuation.resume() }
        }
    }

    /// The first termination wakes the waiter. - Returns: whether this was the first.
    private static func first() -> Bool {
        let (isFirst, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.signalled else { return (false, nil) }
            state.signalled = true
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return isFirst
    }
}

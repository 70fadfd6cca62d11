import Dispatch
import Foundation
import Synchronization

/// SIGHUP for `cashier serve`: "read the configuration again" (systemd's `ExecReload=`,
/// `cashier reload`, `kill -HUP`). Each signal is one element of ``reloads()``; signals that
/// arrive while a reload runs are gathered into one more (the file is read once, as it is then).
package enum HangupSignal {
    /// The source while installed (kept alive: a released source stops delivering).
    private static let installed = Mutex<(any DispatchSourceSignal)?>(nil)

    /// Catches SIGHUP from now on, until ``uninstall()``; each arrival (or burst of arrivals) is one element.
    package static func reloads() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        installed.withLock { installed in
            installed?.cancel()
            signal(SIGHUP, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.setCancelHandler { continuation.finish() }
            source.resume()
            installed = source
        }
        return stream
    }

    /// Stops catching SIGHUP (its default, ending the process, comes back) and ends the stream.
    package static func uninstall() {
        installed.withLock { installed in
            installed?.cancel()
            installed = nil
            signal(SIGHUP, SIG_DFL)
        }
    }
}

public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Stops a helper process for good. `Process.terminate()` sends SIGTERM, which a child started
/// from a test thread may have blocked (it inherits the thread's signal mask); SIGKILL cannot be.
public func stopForGood(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}

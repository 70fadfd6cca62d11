import Synchronization

/// The port the server ended up on, for notify URLs when no public base URL is configured.
final class ListeningPort: Sendable {
    let port = Atomic<UInt16>(0)
}

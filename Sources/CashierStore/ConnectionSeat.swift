import Synchronization

/// A connection used by one caller at a time (a writer thread, the checkpointer, a reader), and
/// `nil` once its owner has closed it: closed where the owner says, not whenever the last
/// reference happens to go.
final class ConnectionSeat<Connection>: Sendable {
    let connection: Mutex<Connection?>
    init(_ connection: consuming sending Connection) { self.connection = Mutex(connection) }
}

/// A connection inside one transaction (or read), handed to ``SQLOrderStore``'s shared statements.
/// Opaque outside CashierStore.
public struct SQLSession {
    let connection: any SQLConnection
}

/// How a payment ended, in the server's words.
public enum PaymentResult: Sendable, Equatable {
    /// The server says the money arrived.
    case paid(ClientOrder)
    /// The payer cancelled in the wallet; the order is still open.
    case cancelled
    /// The server says it is not paid, whatever the wallet said.
    case notPaid(ClientOrder, wallet: WalletOutcome)
}

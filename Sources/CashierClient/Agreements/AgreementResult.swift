/// How signing an agreement ended, in the server's words (your backend's answer), never the wallet's.
public enum AgreementResult: Sendable, Equatable {
    /// The server says it is signed: the merchant may charge under it.
    case active(Agreement)
    /// The server says it was never signed (refused, expired).
    case failed(Agreement)
    /// The server says it already ended.
    case terminated(Agreement)
    /// The payer cancelled in the wallet; the server was not asked (the agreement is as it was).
    case cancelled(Agreement)
    /// The server still says pending at the deadline, whatever the wallet said: ask again later
    /// (the provider's notification may still come).
    case pending(Agreement, wallet: WalletOutcome)

    /// The agreement as last seen.
    public var agreement: Agreement {
        switch self {
        case .active(let agreement), .failed(let agreement), .terminated(let agreement), .cancelled(let agreement),
            .pending(let agreement, _):
            agreement
        }
    }
}

/// A storage failure, with what to do about it in the message.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The database cannot be opened or reached.
        case unavailable
        /// A uniqueness rule was broken (an order number or key used twice).
        case conflict
        /// The database stayed locked by another writer past the timeout.
        case busy
        /// The requested record does not exist.
        case notFound = "not found"
        /// The state machine does not allow the change.
        case illegalTransition = "illegal transition"
        /// More than a payment took would be refunded.
        case limitExceeded = "limit exceeded"
        /// Another operation holds what this one needs (an Apple Pay authorisation in flight).
        case inProgress = "in progress"
        /// The database was migrated by a newer version of Cashier: it holds migrations this one
        /// does not know, and nothing is done to it.
        case newerSchema = "newer schema"
        /// Anything else the database refused.
        case failed
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "StoreError(\(code.rawValue)): \(message)" }
}

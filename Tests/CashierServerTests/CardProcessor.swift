import TestSupport
import Testing

/// The card processors the server's Apple Pay tests run against, as the sandbox plays them.
enum CardProcessor: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case stripe, adyen

    var testDescription: String { rawValue }

    /// Every processor on every store available (SQLite, and three PostgreSQL instances when there is a server).
    static var cases: [(CardProcessor, MoneyWorld.Backend)] {
        allCases.flatMap { processor in MoneyWorld.Backend.available.map { (processor, $0) } }
    }
}

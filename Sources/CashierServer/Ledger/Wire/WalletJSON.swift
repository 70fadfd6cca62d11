import Foundation

/// Wallet parameters as JSON objects for the app's answer.
enum WalletJSON {
    /// `value` encoded and read back as a JSON object (for `JSONSerialization`).
    static func object(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    }
}

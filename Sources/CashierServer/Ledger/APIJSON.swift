import Foundation

/// JSON as the API writes it: keys sorted, slashes not escaped — the bytes ``HTTPServerResponse``'s
/// `json` writes, for answers made where HTTP is not known (a provider's reply to its notification).
enum APIJSON {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map(Array.init)
            ?? Array(#"{"error":{"code":"internal_error","message":"the response could not be encoded"}}"#.utf8)
    }

    /// `{"error":{"code":…,"message":…}}`, the API's error shape.
    static func error(code: String, message: String) -> [UInt8] {
        struct Body: Encodable {
            struct Detail: Encodable {
                let code: String
                let message: String
            }
            let error: Detail
        }
        return encode(Body(error: .init(code: code, message: message)))
    }

    /// A JSON object built as a dictionary, as `HTTPServerResponse.json(object:)` writes it.
    static func object(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}

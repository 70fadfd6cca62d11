import Foundation

/// A JSON object the API passes through without reading its fields (an Apple Pay token, a
/// contact): anything else — a string, a number, an array — is refused where it is decoded.
struct JSONObject: Decodable, Sendable, SchemaLeaf {
    init(from decoder: any Decoder) throws {
        _ = try decoder.singleValueContainer().decode([String: JSONValue.Node].self)
    }

    private init() {}

    static var leafSchema: [String: Any] { ["type": "object"] }
    static var schemaExample: JSONObject { JSONObject() }
}

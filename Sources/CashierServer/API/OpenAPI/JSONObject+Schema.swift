import CashierWire

/// A JSON object the API passes through without reading its fields (an Apple Pay token, a
/// contact): anything else — a string, a number, an array — is refused where it is decoded.
extension JSONObject: SchemaLeaf {
    static var leafSchema: [String: Any] { ["type": "object"] }
    static var schemaExample: JSONObject { JSONObject() }
}

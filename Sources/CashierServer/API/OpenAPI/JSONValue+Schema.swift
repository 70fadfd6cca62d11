import CashierWire

/// Any JSON value, kept as it came: what the API passes through without reading it (Apple's
/// payment token and merchant session, an Apple Pay payment request).
extension JSONValue: SchemaLeaf {
    static var leafSchema: [String: Any] { [:] }
    static var schemaExample: JSONValue { JSONValue([String: Any]()) }
}

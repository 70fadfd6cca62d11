import Foundation

/// Any JSON value, kept as it came: what the API passes through without reading it (Apple's
/// payment token and merchant session, an Apple Pay payment request).
struct JSONValue: Codable, Sendable, SchemaLeaf {
    /// The value as `JSONSerialization` reads it, re-encoded when sent.
    let data: Data

    init(_ object: Any) { data = (try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])) ?? Data("null".utf8) }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        data = try JSONEncoder().encode(try container.decode(Node.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(try JSONDecoder().decode(Node.self, from: data))
    }

    static var leafSchema: [String: Any] { [:] }
    static var schemaExample: JSONValue { JSONValue([String: Any]()) }

    /// One JSON value, read and written recursively.
    enum Node: Codable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Node])
        case object([String: Node])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Node].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Node].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }
    }
}

public import Foundation

/// Any JSON value, kept as it came: what the API passes through without reading it (Apple's
/// payment token and merchant session, an Apple Pay payment request).
///
/// ```swift
/// let request = JSONValue(["countryCode": "CN", "supportsCouponCode": true])
/// let object = try JSONSerialization.jsonObject(with: request.data)
/// ```
public struct JSONValue: Codable, Sendable, Equatable {
    /// The value as `JSONSerialization` writes it, re-encoded when sent.
    public let data: Data

    /// `object` as `JSONSerialization` writes it (`null` when it cannot).
    public init(_ object: Any) {
        data = (try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])) ?? Data("null".utf8)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        data = try JSONEncoder().encode(try container.decode(Node.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(try JSONDecoder().decode(Node.self, from: data))
    }

    /// The value as JSON text with its object keys sorted.
    public var sortedData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? data
    }

    /// One JSON value, read and written recursively.
    public enum Node: Codable, Sendable, Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Node])
        case object([String: Node])

        public init(from decoder: any Decoder) throws {
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

        public func encode(to encoder: any Encoder) throws {
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

import Foundation

/// A `Decoder` that reads a type's schema by decoding it from nothing: each key the type asks
/// for becomes a property (optional when it is asked through `decodeIfPresent`, which first asks
/// whether the key is null; such a property also takes JSON `null`, as the decoder does), each
/// nested value is read the same way, an array reads one element and a dictionary one value.
final class JSONSchemaProbe: Decoder {
    let builder: JSONSchemaBuilder
    let shape = SchemaShape()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(builder: JSONSchemaBuilder) {
        self.builder = builder
        shape.nullableOptionals = true
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape.isObject = true
        return KeyedDecodingContainer(Keyed<Key>(probe: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(probe: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(probe: self) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let probe: JSONSchemaProbe
        var codingPath: [any CodingKey] { probe.codingPath }

        /// Asked only by a dictionary: it is a map, read through one made-up key.
        var allKeys: [Key] {
            probe.shape.isObject = false
            return Key(stringValue: "*").map { [$0] } ?? []
        }

        func contains(_ key: Key) -> Bool { true }

        func decodeNil(forKey key: Key) throws -> Bool {
            probe.shape.optional.insert(key.stringValue)
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let (schema, value) = try probe.builder.decoded(type)
            if key.stringValue == "*" && !probe.shape.isObject {
                probe.shape.values = schema
            } else {
                probe.shape.set(key.stringValue, schema, optional: probe.shape.optional.contains(key.stringValue))
            }
            return value
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Boxed<Bool>.self, forKey: key).value }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(Boxed<String>.self, forKey: key).value }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Boxed<Double>.self, forKey: key).value }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Boxed<Int>.self, forKey: key).value }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Boxed<Int64>.self, forKey: key).value }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Boxed<Int32>.self, forKey: key).value }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw unsupported(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw unsupported(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw unsupported(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw unsupported(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw unsupported(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw unsupported(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw unsupported(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw unsupported(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        { throw unsupported(type) }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw unsupported([Any].self) }
        func superDecoder() throws -> any Decoder { throw unsupported(Any.self) }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported(Any.self) }
    }

    /// An array: its one element's schema is the items'.
    struct Unkeyed: UnkeyedDecodingContainer {
        let probe: JSONSchemaProbe
        var codingPath: [any CodingKey] { probe.codingPath }
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex > 0 }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (schema, value) = try probe.builder.decoded(type)
            probe.shape.items = schema
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw unsupported(type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw unsupported([Any].self) }
        mutating func superDecoder() throws -> any Decoder { throw unsupported(Any.self) }
    }

    /// One value (a type with its own `init(from:)` that reads a scalar).
    struct Single: SingleValueDecodingContainer {
        let probe: JSONSchemaProbe
        var codingPath: [any CodingKey] { probe.codingPath }

        func decodeNil() -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (schema, value) = try probe.builder.decoded(type)
            probe.shape.single = schema
            return value
        }
    }

    /// A scalar decoded through the generic path.
    struct Boxed<Value>: Decodable {
        let value: Value
        init(from decoder: any Decoder) throws {
            guard let (schema, value) = JSONSchemaBuilder.primitive(Value.self), let probe = decoder as? JSONSchemaProbe else {
                throw unsupported(Value.self)
            }
            probe.shape.single = schema
            self.value = value
        }
    }
}

/// A request type reads something the document cannot describe.
private func unsupported(_ type: Any.Type) -> JSONSchemaBuilder.Problem {
    JSONSchemaBuilder.Problem(description: "the OpenAPI document cannot read a \(type) from a request type")
}

import Foundation

/// An `Encoder` that reads a type's schema by encoding an example of it: each key written
/// becomes a property (optional when written through `encodeIfPresent`, whose type is read even
/// when the example leaves it `nil`), an array's first element gives its items and a
/// dictionary's first value its values — so an example's arrays and dictionaries are never empty.
final class JSONSchemaRecorder: Encoder {
    let builder: JSONSchemaBuilder
    let shape = SchemaShape()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(builder: JSONSchemaBuilder) { self.builder = builder }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A dictionary writes its keys through the standard library's own key type.
        let isMap = String(describing: type).contains("DictionaryCodingKey")
        if !isMap { shape.isObject = true }
        return KeyedEncodingContainer(Keyed<Key>(recorder: self, isMap: isMap))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(recorder: self) }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(recorder: self) }

    func record(_ key: String, _ schema: [String: Any], optional: Bool, isMap: Bool) {
        if isMap {
            if shape.values == nil { shape.values = schema }
        } else {
            shape.set(key, schema, optional: optional)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let recorder: JSONSchemaRecorder
        let isMap: Bool
        var codingPath: [any CodingKey] { recorder.codingPath }

        mutating func encodeNil(forKey key: Key) throws {
            recorder.record(key.stringValue, ["type": "null"], optional: false, isMap: isMap)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            recorder.record(key.stringValue, try recorder.builder.schema(encoding: value), optional: false, isMap: isMap)
        }

        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            let schema = try value.map { try recorder.builder.schema(encoding: $0) } ?? recorder.builder.schema(encodingType: T.self)
            recorder.record(key.stringValue, schema, optional: true, isMap: isMap)
        }

        mutating func encode(_ value: Bool, forKey key: Key) throws { try scalar(Bool.self, key) }
        mutating func encode(_ value: String, forKey key: Key) throws { try scalar(String.self, key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try scalar(Double.self, key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try scalar(Float.self, key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try scalar(Int.self, key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try scalar(Int8.self, key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try scalar(Int16.self, key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try scalar(Int32.self, key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try scalar(Int64.self, key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try scalar(UInt.self, key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try scalar(UInt8.self, key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try scalar(UInt16.self, key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try scalar(UInt32.self, key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try scalar(UInt64.self, key) }

        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try scalar(Bool.self, key, optional: true) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try scalar(String.self, key, optional: true) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try scalar(Double.self, key, optional: true) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try scalar(Int.self, key, optional: true) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try scalar(Int32.self, key, optional: true) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try scalar(Int64.self, key, optional: true) }

        private func scalar<V>(_ type: V.Type, _ key: Key, optional: Bool = false) throws {
            guard let (schema, _) = JSONSchemaBuilder.primitive(type) else { throw unsupported(type) }
            recorder.record(key.stringValue, schema, optional: optional, isMap: isMap)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        { preconditionFailure("the OpenAPI document cannot read nested containers; encode a type") }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("the OpenAPI document cannot read nested containers; encode a type")
        }
        mutating func superEncoder() -> any Encoder { recorder }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            preconditionFailure("the OpenAPI document cannot read superEncoder(forKey:)")
        }
    }

    /// An array: its first element's schema is the items'.
    struct Unkeyed: UnkeyedEncodingContainer {
        let recorder: JSONSchemaRecorder
        var codingPath: [any CodingKey] { recorder.codingPath }
        var count = 0

        mutating func encodeNil() throws { count += 1 }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if recorder.shape.items == nil { recorder.shape.items = try recorder.builder.schema(encoding: value) }
            count += 1
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("the OpenAPI document cannot read nested containers; encode a type")
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("the OpenAPI document cannot read nested containers; encode a type")
        }
        mutating func superEncoder() -> any Encoder { recorder }
    }

    /// One value (a type with its own `encode(to:)` that writes a scalar).
    struct Single: SingleValueEncodingContainer {
        let recorder: JSONSchemaRecorder
        var codingPath: [any CodingKey] { recorder.codingPath }

        mutating func encodeNil() throws { recorder.shape.single = ["type": "null"] }

        mutating func encode<T: Encodable>(_ value: T) throws { recorder.shape.single = try recorder.builder.schema(encoding: value) }
    }
}

private func unsupported(_ type: Any.Type) -> JSONSchemaBuilder.Problem {
    JSONSchemaBuilder.Problem(description: "the OpenAPI document cannot read a \(type) from a response type")
}

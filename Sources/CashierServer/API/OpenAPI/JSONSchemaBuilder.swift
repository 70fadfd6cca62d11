import Foundation

/// Writes JSON Schemas (2020-12, as OpenAPI 3.1 takes them) from Swift types: a `Decodable`
/// request type is read by decoding it from nothing (``JSONSchemaProbe``), an `Encodable`
/// response by encoding its example (``JSONSchemaRecorder``). Every struct becomes a component
/// under `#/components/schemas` and is referred to by `$ref`; ``SchemaDocumented`` notes are
/// added to its properties.
final class JSONSchemaBuilder {
    /// The components written so far, by name.
    private(set) var components: [String: [String: Any]] = [:]
    private var owners: [String: ObjectIdentifier] = [:]

    /// What went wrong while reading a type: the document cannot be written.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The schema of a request body type: a `$ref` to its component.
    func schema<T: Decodable>(decoding type: T.Type) throws -> [String: Any] {
        try decoded(type).schema
    }

    /// The schema of a response type, read from its example: a `$ref` to its component.
    func schema<T: SchemaExample>(example type: T.Type) throws -> [String: Any] {
        try schema(encoding: T.schemaExample)
    }

    // MARK: Decoding side

    func decoded<T: Decodable>(_ type: T.Type) throws -> (schema: [String: Any], value: T) {
        if let leaf = T.self as? any SchemaLeaf.Type, let value = leaf.schemaExample as? T { return (leaf.leafSchema, value) }
        if let (schema, value) = Self.primitive(T.self) { return (schema, value) }
        let probe = JSONSchemaProbe(builder: self)
        let value = try T(from: probe)
        return (try named(probe.shape, for: T.self), value)
    }

    // MARK: Encoding side

    func schema(encoding value: some Encodable) throws -> [String: Any] {
        let type = Swift.type(of: value)
        if let leaf = type as? any SchemaLeaf.Type { return leaf.leafSchema }
        if let (schema, _) = Self.primitive(type) { return schema }
        let recorder = JSONSchemaRecorder(builder: self)
        try value.encode(to: recorder)
        return try named(recorder.shape, for: type)
    }

    /// The schema of a type whose value is absent (an optional left `nil` in an example).
    func schema(encodingType type: any Encodable.Type) throws -> [String: Any] {
        if let leaf = type as? any SchemaLeaf.Type { return leaf.leafSchema }
        if let (schema, _) = Self.primitive(type) { return schema }
        if let example = type as? any SchemaExample.Type { return try schema(encoding: example.schemaExample) }
        if let container = type as? any SchemaContainer.Type { return try container.containerSchema(self) }
        throw Problem(description: "\(type) is nil in an example and has no example of its own: give it SchemaExample")
    }

    // MARK: Components

    /// An object becomes a named component (`$ref`); arrays, maps and plain values stay inline.
    private func named(_ shape: SchemaShape, for type: Any.Type) throws -> [String: Any] {
        let schema = try shape.schema()
        guard schema["properties"] != nil else { return schema }
        let documented = type as? any SchemaDocumented.Type
        let name = documented?.schemaName ?? Self.defaultName(type)
        var component = schema
        if let documented {
            var properties = component["properties"] as? [String: [String: Any]] ?? [:]
            for (key, notes) in documented.schemaNotes {
                guard var property = properties[key] else {
                    throw Problem(description: "\(name): a note names \(key), which the type does not have")
                }
                // A shared enumeration stands for the plain type it narrows.
                if notes["$ref"] != nil { property = property.filter { $0.key == "description" } }
                property.merge(notes) { _, note in note }
                properties[key] = property
            }
            component["properties"] = properties
            if let description = documented.schemaDescription { component["description"] = description }
            component.merge(documented.schemaExtra) { _, extra in extra }
        }
        if shape.nullableOptionals, var properties = component["properties"] as? [String: [String: Any]] {
            for key in shape.optional { properties[key] = properties[key].map(Self.orNull) }
            component["properties"] = properties
        }
        // Each `oneOf` branch carries every property (its own constraints win), so a generated
        // client's model for a branch has all the fields, not only the ones the branch names.
        if let branches = component["oneOf"] as? [[String: Any]], let properties = component["properties"] as? [String: [String: Any]] {
            component["oneOf"] = branches.map { branch -> [String: Any] in
                var branch = branch
                let own = branch["properties"] as? [String: Any] ?? [:]
                branch["properties"] = (properties as [String: Any]).merging(own) { _, narrowed in narrowed }
                branch["type"] = "object"
                return branch
            }
            if component["discriminator"] != nil { try hoistBranches(of: &component, name: name) }
        }
        if let owner = owners[name], owner != ObjectIdentifier(type) {
            throw Problem(description: "two types are both named \(name) in the document: give one a schemaName")
        }
        owners[name] = ObjectIdentifier(type)
        components[name] = component
        return ["$ref": "#/components/schemas/\(name)"]
    }

    /// A discriminated `oneOf`'s branches become components of their own, named by their `title`,
    /// and the discriminator maps each value of its property to its branch: what OpenAPI's
    /// discriminator expects, and a generated client gets one named model per branch.
    private func hoistBranches(of component: inout [String: Any], name: String) throws {
        guard var discriminator = component["discriminator"] as? [String: Any],
            let property = discriminator["propertyName"] as? String, let branches = component["oneOf"] as? [[String: Any]]
        else { return }
        var mapping: [String: String] = [:]
        component["oneOf"] = try branches.map { branch -> [String: Any] in
            guard let title = branch["title"] as? String else {
                throw Problem(description: "\(name): a discriminated branch has no title to name it by")
            }
            var hoisted = branch.filter { $0.key != "title" }
            hoisted["additionalProperties"] = component["additionalProperties"]
            let values = ((branch["properties"] as? [String: Any])?[property] as? [String: Any])?["enum"] as? [String] ?? []
            guard !values.isEmpty else { throw Problem(description: "\(name).\(title): \(property) has no enum to map") }
            let reference = "#/components/schemas/\(title)"
            for value in values { mapping[value] = reference }
            components[title] = hoisted
            return ["$ref": reference]
        }
        discriminator["mapping"] = mapping
        component["discriminator"] = discriminator
    }

    /// `schema`, or `null` (what an optional request field takes: the decoder reads `null` as
    /// absent). A plain type gains `"null"` among its types; an enumeration, a constant or a
    /// reference becomes `anyOf` it or `null`, which generators read as an optional value.
    static func orNull(_ schema: [String: Any]) -> [String: Any] {
        var schema = schema
        let description = schema.removeValue(forKey: "description")
        var nullable: [String: Any]
        if let type = schema["type"] as? String, schema["enum"] == nil, schema["const"] == nil, schema["$ref"] == nil {
            nullable = schema
            nullable["type"] = [type, "null"]
        } else if schema.isEmpty {
            nullable = [:]
        } else {
            nullable = ["anyOf": [schema, ["type": "null"]]]
        }
        if let description { nullable["description"] = description }
        return nullable
    }

    /// `OrderRequest.Item` → `OrderRequestItem` (module and `MerchantAPI` dropped).
    static func defaultName(_ type: Any.Type) -> String {
        String(reflecting: type).split(separator: ".").dropFirst().filter { $0 != "MerchantAPI" }.joined()
    }

    /// The JSON type of a Swift scalar, and a value of it.
    static func primitive<T>(_ type: T.Type) -> ([String: Any], T)? {
        let integer: [String: Any] = ["type": "integer"]
        let found: ([String: Any], Any)? =
            switch type {
            case is String.Type: (["type": "string"], "")
            case is Bool.Type: (["type": "boolean"], false)
            case is Int.Type: (integer, 0 as Int)
            case is Int64.Type: (["type": "integer", "format": "int64"], 0 as Int64)
            case is Int32.Type: (["type": "integer", "format": "int32"], 0 as Int32)
            case is Double.Type: (["type": "number"], 0.0)
            default: nil
            }
        guard let (schema, value) = found, let typed = value as? T else { return nil }
        return (schema, typed)
    }
}

/// What a probe or recorder learnt about one value: an object's properties, an array's items,
/// a map's values or a single schema.
final class SchemaShape {
    var properties: [String: [String: Any]] = [:]
    var order: [String] = []
    var optional: Set<String> = []
    var items: [String: Any]?
    var values: [String: Any]?
    var single: [String: Any]?
    var isObject = false
    /// An optional property also takes `null` (request types: the decoder reads it as absent).
    var nullableOptionals = false

    func set(_ key: String, _ schema: [String: Any], optional isOptional: Bool = false) {
        if properties[key] == nil { order.append(key) }
        properties[key] = schema
        if isOptional { optional.insert(key) }
    }

    func schema() throws -> [String: Any] {
        if let single { return single }
        if let items { return ["type": "array", "items": items] }
        if let values { return ["type": "object", "additionalProperties": values] }
        guard isObject else { throw JSONSchemaBuilder.Problem(description: "a value wrote nothing to read a schema from") }
        var schema: [String: Any] = ["type": "object", "properties": properties]
        let required = order.filter { !optional.contains($0) }
        if !required.isEmpty { schema["required"] = required }
        // A request object takes only its fields: the server refuses any other (RequestFields).
        if nullableOptionals { schema["additionalProperties"] = false }
        return schema
    }
}

/// An array or a dictionary whose schema is read from its element type (when an example leaves it `nil`).
protocol SchemaContainer {
    static func containerSchema(_ builder: JSONSchemaBuilder) throws -> [String: Any]
}

extension Array: SchemaContainer where Element: Encodable {
    static func containerSchema(_ builder: JSONSchemaBuilder) throws -> [String: Any] {
        ["type": "array", "items": try builder.schema(encodingType: Element.self)]
    }
}

extension Dictionary: SchemaContainer where Key == String, Value: Encodable {
    static func containerSchema(_ builder: JSONSchemaBuilder) throws -> [String: Any] {
        ["type": "object", "additionalProperties": try builder.schema(encodingType: Value.self)]
    }
}

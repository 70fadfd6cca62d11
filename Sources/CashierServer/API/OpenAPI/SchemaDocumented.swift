/// A type the OpenAPI document describes from its own `Codable` definition: the properties,
/// their types and which are required come from how the type decodes or encodes itself; these
/// notes add what the type system cannot say (descriptions, enumerations, formats, bounds).
protocol SchemaDocumented {
    /// The component's name under `#/components/schemas` (default: the type's name, nesting joined).
    static var schemaName: String { get }
    /// What the type is, for the component's description.
    static var schemaDescription: String? { get }
    /// Keywords added to a property's schema, by the property's JSON name: `description`, `enum`,
    /// `format`, `pattern`, `minimum`, `maximum`, `minLength`, `maxLength`, `examples`.
    static var schemaNotes: [String: [String: Any]] { get }
    /// Keywords added to the component itself (`oneOf` for fields that go together, say).
    static var schemaExtra: [String: Any] { get }
}

extension SchemaDocumented {
    static var schemaName: String { JSONSchemaBuilder.defaultName(Self.self) }
    static var schemaDescription: String? { nil }
    static var schemaNotes: [String: [String: Any]] { [:] }
    static var schemaExtra: [String: Any] { [:] }
}

/// A value the document writes as one fixed schema rather than from its fields: an amount, a
/// whole number read from any JSON number. `schemaExample` stands in for it while a type that
/// holds it is read.
protocol SchemaLeaf {
    static var leafSchema: [String: Any] { get }
    static var schemaExample: Self { get }
}

/// A response type with an example: the document reads the type's shape by encoding it (a
/// property the example leaves `nil` is read from its type) and shows the example.
protocol SchemaExample: Encodable {
    static var schemaExample: Self { get }
}

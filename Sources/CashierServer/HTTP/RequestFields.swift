import Cashier
import Synchronization

/// The fields a request body may carry, read from its `Decodable` type (the schema the OpenAPI
/// document shows): a field the type does not read is refused, not ignored. A refund sent as
/// `{"amout": "1.00"}` would otherwise refund the whole payment, and an order's `"descripton"`
/// would quietly be left out. Objects the API passes through whole (an Apple Pay token, a
/// contact) and maps (`metadata`) take any key.
struct RequestFields: Sendable {
    /// What one JSON value may hold.
    indirect enum Shape: Sendable {
        /// An object with these fields, each with its own shape.
        case object([String: Shape])
        /// A list whose every element has this shape.
        case list(Shape)
        /// A map from any key to values of this shape.
        case map(Shape)
        /// Anything: a scalar, or an object passed through unread.
        case any
    }

    let shape: Shape

    /// The fields `type` reads. - Throws: when its schema cannot be read (a programming error).
    init<T: Decodable>(of type: T.Type) throws {
        let builder = JSONSchemaBuilder()
        let schema = try builder.schema(decoding: type)
        shape = Self.shape(schema, builder.components, depth: 0)
    }

    private static func shape(_ schema: [String: Any], _ components: [String: [String: Any]], depth: Int) -> Shape {
        guard depth < 32 else { return .any }
        if let reference = schema["$ref"] as? String, let component = components[String(reference.split(separator: "/").last ?? "")] {
            return shape(component, components, depth: depth + 1)
        }
        // `anyOf` [it, null] (an optional field) or `oneOf` branches: the fields of every branch.
        for key in ["anyOf", "oneOf"] {
            guard let branches = schema[key] as? [[String: Any]] else { continue }
            let shapes = branches.map { shape($0, components, depth: depth + 1) }
            var fields: [String: Shape] = [:]
            for case .object(let own) in shapes { fields.merge(own) { first, _ in first } }
            for (name, property) in schema["properties"] as? [String: [String: Any]] ?? [:] where fields[name] == nil {
                fields[name] = shape(property, components, depth: depth + 1)
            }
            if !fields.isEmpty { return .object(fields) }
            return shapes.first {
                if case .any = $0 { return false }
                return true
            } ?? .any
        }
        // An object the API reads a few fields of and passes on whole (Apple Pay JS's contact).
        if schema["additionalProperties"] as? Bool == true { return .any }
        if let properties = schema["properties"] as? [String: [String: Any]] {
            return .object(properties.mapValues { shape($0, components, depth: depth + 1) })
        }
        if let items = schema["items"] as? [String: Any] { return .list(shape(items, components, depth: depth + 1)) }
        if let values = schema["additionalProperties"] as? [String: Any] { return .map(shape(values, components, depth: depth + 1)) }
        return .any
    }

    /// The first field `body` carries that its type does not read, as a message naming where it
    /// is and the field probably meant (`items[1].qty is not a field of this request: did you mean
    /// quantity?`); `nil` when every field is known.
    func unknownField(in body: JSONReader.Value) -> String? {
        Self.unknown(body, shape, path: "")
    }

    private static func unknown(_ value: JSONReader.Value, _ shape: Shape, path: String) -> String? {
        switch (shape, value) {
        case (.object(let fields), .object(let object)):
            for key in object.keys.sorted() {
                let at = path.isEmpty ? key : path + "." + key
                guard let field = fields[key] else {
                    return "\(KeySuggestion.quoted(at)) is not a field of this request" + KeySuggestion.hint(for: key, among: fields.keys)
                }
                if let member = object[key], let problem = unknown(member, field, path: at) { return problem }
            }
            return nil
        case (.list(let element), .array(let list)):
            for (index, item) in list.enumerated() {
                if let problem = unknown(item, element, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.map(let values), .object(let object)):
            for key in object.keys.sorted() {
                if let member = object[key], let problem = unknown(member, values, path: path.isEmpty ? key : path + "." + key) {
                    return problem
                }
            }
            return nil
        default:
            // Anything goes here, or the value is not of the shape at all: the decoder names that.
            return nil
        }
    }

    private static let known = Mutex<[ObjectIdentifier: RequestFields]>([:])

    /// The fields of `type`, read once per type.
    static func of<T: Decodable>(_ type: T.Type) throws -> RequestFields {
        if let found = known.withLock({ $0[ObjectIdentifier(type)] }) { return found }
        let fields = try RequestFields(of: type)
        known.withLock { $0[ObjectIdentifier(type)] = fields }
        return fields
    }
}

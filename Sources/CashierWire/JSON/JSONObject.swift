/// A JSON object passed through without its fields being read (an Apple Pay token, a contact):
/// anything else — a string, a number, an array — is refused where it is decoded.
///
/// ```swift
/// let token = try JSONDecoder().decode(JSONObject.self, from: Data(#"{"paymentData":{}}"#.utf8))
/// ```
public struct JSONObject: Codable, Sendable, Equatable {
    /// The object's members.
    public let members: [String: JSONValue.Node]

    public init(_ members: [String: JSONValue.Node] = [:]) {
        self.members = members
    }

    public init(from decoder: any Decoder) throws {
        members = try decoder.singleValueContainer().decode([String: JSONValue.Node].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(members)
    }
}

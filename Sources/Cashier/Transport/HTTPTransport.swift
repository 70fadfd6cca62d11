public import Foundation

/// Sends one HTTP request to a provider's gateway.
///
/// Every outbound call goes through this seam, so tests can point a client at the sandbox on
/// 127.0.0.1 or at a fault injector. Implementations must not log bodies.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status code.
    /// - Throws: `PaymentError` with code `.transport` when no response arrived.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Header fields with case-insensitive names, in the order they were added.
public struct HTTPHeaders: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// Appends a field.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field of that name with one.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { Self.nameMatches($0.name, name) }
        fields.append((name, value))
    }

    /// The first value of a field, looked up case-insensitively.
    public subscript(_ name: String) -> String? {
        fields.first { Self.nameMatches($0.name, name) }?.value
    }

    /// Whether two field names are the same: ASCII letters compared without case (field names
    /// are ASCII tokens, RFC 9110 §5.1), every other byte exactly.
    public static func nameMatches(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20))
        }
    }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.map { [$0.name.lowercased(), $0.value] } == rhs.fields.map { [$0.name.lowercased(), $0.value] }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

/// An outbound request.
public struct HTTPRequest: Hashable, Sendable {
    public var method: String
    public var url: URL
    public var headers: HTTPHeaders
    public var body: Data
    /// How long to wait for the whole exchange.
    public var timeout: Duration

    public init(method: String, url: URL, headers: HTTPHeaders = [:], body: Data = Data(), timeout: Duration = .seconds(10)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A response.
public struct HTTPResponse: Hashable, Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

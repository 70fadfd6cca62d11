public import Cashier
import Foundation

/// A request as the server received it, with its body read in full (and within the limit).
public struct HTTPServerRequest: Sendable {
    /// `GET`, `POST`, …
    public let method: String
    /// The path without the query, percent-decoded, e.g. `/v1/orders/ord_123`.
    public let path: String
    /// Query arguments, percent-decoded, in order.
    public let query: [(name: String, value: String)]
    /// Header fields, looked up case-insensitively.
    public let headers: HTTPHeaders
    /// The body bytes.
    public let body: [UInt8]
    /// The address the connection came from (`203.0.113.7`, `::1`), when the server knows it. Behind
    /// a proxy it is the proxy's.
    public var remoteAddress: String?

    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The path of a request target: origin-form (`/a/b`) as is, absolute-form
    /// (`http://host:port/a/b`, which RFC 9112 §3.2.2 says a server must accept, and which some
    /// SDKs send) reduced to its path, `/` when it has none.
    ///
    /// `given` is the path as libmicrohttpd decoded it: the query was split off before the
    /// percent-escapes were, so a `?` or `#` here came from `%3F` or `%23` and is part of the
    /// path (an order id, say). Cutting there made `POST /v1/orders/B%23/close` reach
    /// `/v1/orders/B` (found by Schemathesis).
    public static func path(ofTarget given: String) -> String {
        let target = given
        if given.utf8.first == UInt8(ascii: "/") { return target }  // origin-form: almost every request
        guard let scheme = target.range(of: "://") else { return target }
        let afterAuthority = target[scheme.upperBound...].firstIndex(of: "/")
        return afterAuthority.map { String(target[$0...]) } ?? "/"
    }

    /// The query as a dictionary, the first value of a name repeated.
    public var queryFields: [String: String] {
        query.reduce(into: [:]) { $0[$1.name] = $0[$1.name] ?? $1.value }
    }

    /// The first query argument named `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Decodes the body as JSON.
    /// - Throws: `DecodingError` when the body is not a `T`.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body))
    }

    /// The body as an HTML form (`application/x-www-form-urlencoded`): `+` is a space, the rest
    /// percent-decoded; a name given twice keeps its last value.
    /// A pair whose escapes do not decode (or are not UTF-8) is left out — never a crash: found
    /// by fuzzing, `URLComponents.percentEncodedQuery` traps on such bodies.
    public var formFields: [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decoded(parts[0]), let value = parts.count > 1 ? decoded(parts[1]) : "" else { continue }
            fields[name] = value
        }
        return fields
    }
}

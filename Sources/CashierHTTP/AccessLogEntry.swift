import Foundation

/// One line of the access log. It holds only what is safe to log: never the query string (it
/// can carry a client secret), never a header value, never a body.
public struct AccessLogEntry: Sendable {
    public let method: String
    public let path: String
    public let status: Int
    public let responseBytes: Int
    public let requestBytes: Int
    public let duration: Duration

    /// The same entry with another path: what a server logs in place of a path that carries a
    /// secret of its own (a checkout link's client secret).
    public func with(path: String) -> AccessLogEntry {
        AccessLogEntry(
            method: method, path: path, status: status, responseBytes: responseBytes, requestBytes: requestBytes, duration: duration)
    }

    /// A JSON line: `{"bytes_in":…,"bytes_out":…,"method":"POST","ms":…,"path":"/notify/wechat/v2","status":200}`.
    public var jsonLine: String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        let object: [String: Any] = [
            "method": method, "path": path, "status": status, "bytes_out": responseBytes, "bytes_in": requestBytes,
            "ms": (milliseconds * 1000).rounded() / 1000,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

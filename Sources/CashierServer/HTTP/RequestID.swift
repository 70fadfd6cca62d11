import CashierCrypto
import CashierHTTP
import Synchronization

/// A request's id: the `X-Request-Id` it came with when that is sane (1 to 128 of letters,
/// digits and `-_.:/+=@`), else one made here. It goes back in the answer's `X-Request-Id`, into
/// the access log, and — through the task-local ``current`` — into the log line of every call
/// to a provider its handler makes, so one payment's story can be followed from the proxy's log
/// to WeChat Pay's and back.
enum RequestID {
    /// The header, both ways.
    static let header = "X-Request-Id"

    /// The id of the request whose handler is running, `nil` outside one (a job's call).
    @TaskLocal static var current: String?

    /// `value` when it may be taken as an id (and so echoed in a header and written in a log):
    /// `nil` for none, an empty one, one over 128 bytes, or one with any other byte.
    static func given(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count) else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || [45, 95, 46, 58, 47, 43, 61, 64].contains(byte)
        }
        return allowed ? value : nil
    }

    /// Random for this process, so ids from several instances never collide.
    private static let prefix = "req_" + SecureRandom.alphanumeric(count: 10).lowercased()
    private static let counter = Atomic<UInt64>(0)

    /// A new id: `req_<10 random characters>_<counter in base 36>` — unique, and cheap enough for every request.
    static func make() -> String {
        prefix + "_" + String(counter.add(1, ordering: .relaxed).newValue, radix: 36)
    }

    /// `response` with `X-Request-Id: id`, unless it is a prepared answer (sent as built, at no cost).
    static func tag(_ response: HTTPServerResponse, _ id: String) -> HTTPServerResponse {
        guard !response.isPrepared else { return response }
        var tagged = response
        tagged.headers.set(header, id)
        return tagged
    }
}

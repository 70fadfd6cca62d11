public import CashierHTTP
import Synchronization

/// A merchant's notify endpoint on loopback that keeps every body it receives and answers each
/// with the same reply (WeChat Pay's `<xml><return_code>SUCCESS…`, Alipay's `success`). A test
/// waits for the first body its parser accepts, woken by the arrival rather than polling.
///
/// ```swift
/// let recorder = try NotifyRecorder(reply: WeChatPay.V2.NotificationReply.success.xmlString)
/// let contract = await recorder.first { try? WeChatPay.V2.ContractNotification.verify($0, merchant: merchant) }
/// ```
public final class NotifyRecorder: Sendable {
    private final class Bodies: Sendable {
        let list = Mutex<[[UInt8]]>([])
        var copy: [[UInt8]] { list.withLock { $0 } }
    }

    private let bodies = Bodies()
    private let arrivals = Tally()
    public let server: HTTPServer

    /// - Parameters:
    ///   - reply: the body a notification is answered with (status 200).
    ///   - refusing: how many of the first notifications are answered with `refusal` instead
    ///     (kept all the same), so the sender retries.
    ///   - refusal: their answer (WeChat Pay's `FAIL`, Alipay's `fail`).
    public init(reply: String, refusing: Int = 0, refusal: String = "") throws {
        let bodies = self.bodies
        let arrivals = self.arrivals
        server = HTTPServer(configuration: .init(threads: 1)) { request in
            let count = bodies.list.withLock {
                $0.append(request.body)
                return $0.count
            }
            arrivals.add()
            return .text(count <= refusing ? refusal : reply)
        }
        try server.start()
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String = "/notify") -> String { "http://127.0.0.1:\(server.port)\(path)" }

    /// What `parse` makes of the bodies received so far, in order of arrival (`nil`s left out).
    public func all<T>(_ parse: ([UInt8]) -> T?) -> [T] {
        bodies.copy.compactMap(parse)
    }

    /// The first body `parse` accepts, waiting up to `bound` for it to arrive.
    public func first<T>(within bound: Duration = .seconds(60), _ parse: ([UInt8]) -> T?) async -> T? {
        await arrivals.first(within: bound) { bodies.copy.lazy.compactMap(parse).first }
    }
}

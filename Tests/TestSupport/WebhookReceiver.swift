public import CashierHTTP
public import Foundation
import Synchronization

/// A merchant's webhook endpoint on loopback that fails the first `failures` deliveries (and every
/// one while it is ``isDown``) and keeps every one it received. A test in another process drives
/// it over HTTP: `POST /down` and `POST /up` switch it, `GET /received` lists what came
/// (`[{"event_id": …, "accepted": true|false}]`). Made with `listening: false` it opens no
/// socket: an ``InProcessTransport`` answers its ``url`` with ``handle(_:)``.

public final class WebhookReceiver: Sendable {
    public struct Delivery: Sendable {
        public let body: [UInt8]
        public let signature: String
        public let eventID: String
        /// Whether it was answered 2xx.
        public let accepted: Bool
    }

    public let server: HTTPServer
    /// Deliveries received so far (each kept in ``received``): a test waits on it.
    public let arrivals: Tally
    /// The port it answers at: its socket's, or a reserved one when it does not listen.
    public let port: UInt16

    public init(failures: Int, down: Bool = false, listening: Bool = true) throws {
        let box = Box()
        let arrivals = Tally()
        self.arrivals = arrivals
        box.down.store(down, ordering: .releasing)
        server = HTTPServer(configuration: .init(threads: 1)) { request in
            switch request.path {
            case "/up", "/down":
                box.down.store(request.path == "/down", ordering: .releasing)
                return .text(String(request.path.dropFirst()))
            case "/received":
                struct Row: Encodable {
                    let event_id: String
                    let accepted: Bool
                }
                return .json(box.deliveries.withLock { $0.map { Row(event_id: $0.eventID, accepted: $0.accepted) } })
            default:
                let accepted = box.deliveries.withLock { list in
                    let accepted = list.count >= failures && !box.down.load(ordering: .acquiring)
                    list.append(
                        Delivery(
                            body: request.body, signature: request.headers["Cashier-Signature"] ?? "",
                            eventID: request.headers["Cashier-Event-Id"] ?? "", accepted: accepted))
                    return accepted
                }
                arrivals.add()
                return accepted ? .text("ok") : .text("down", status: 503)
            }
        }
        self.box = box
        if listening {
            try server.start()
            port = server.port
        } else {
            port = InProcessTransport.reservePort()
        }
    }

    /// Answers `request` as it would over its socket.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await server.handle(request)
    }

    final class Box: Sendable {
        let deliveries = Mutex<[Delivery]>([])
        let down = Atomic<Bool>(false)
    }
    let box: Box
    public var received: [Delivery] { box.deliveries.withLock { $0 } }
    /// While true, every delivery is answered 503 (and still kept).
    public var isDown: Bool {
        get { box.down.load(ordering: .acquiring) }
        set { box.down.store(newValue, ordering: .releasing) }
    }
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/hooks")! }
}

public import CashierHTTP
public import Foundation
import Synchronization

/// A merchant's webhook endpoint on loopback that fails the first `failures` deliveries and
/// keeps every one it received.
public final class WebhookReceiver: Sendable {
    public struct Delivery: Sendable {
        public let body: [UInt8]
        public let signature: String
        public let eventID: String
    }

    public let server: HTTPServer

    public init(failures: Int) throws {
        let box = Box()
        server = HTTPServer(configuration: .init(threads: 1)) { request in
            let count = box.deliveries.withLock { list in
                list.append(
                    Delivery(
                        body: request.body, signature: request.headers["Cashier-Signature"] ?? "",
                        eventID: request.headers["Cashier-Event-Id"] ?? ""))
                return list.count
            }
            return count <= failures ? .text("down", status: 503) : .text("ok")
        }
        self.box = box
        try server.start()
    }

    final class Box: Sendable { let deliveries = Mutex<[Delivery]>([]) }
    let box: Box
    public var received: [Delivery] { box.deliveries.withLock { $0 } }
    public var url: URL { URL(string: "http://127.0.0.1:\(server.port)/hooks")! }
}

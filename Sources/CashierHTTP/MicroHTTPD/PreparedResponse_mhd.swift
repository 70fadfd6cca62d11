internal import CMicroHTTPD
import Foundation
import Synchronization

/// A response's libmicrohttpd copy, built by the first worker to send it and destroyed with the
/// last ``HTTPServerResponse`` that holds it (connections still sending it keep their own reference).
final class PreparedResponse: @unchecked Sendable {
    private let lock = Mutex<OpaquePointer?>(nil)

    func built(_ build: () -> OpaquePointer?) -> OpaquePointer? {
        lock.withLock { built in
            if built == nil { built = build() }
            return built
        }
    }

    deinit {
        if let built = lock.withLock({ $0 }) { MHD_destroy_response(built) }
    }
}

public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a local server, for what URLSession hides: reading a response as it
/// arrives (a stream of Server-Sent Events), or hanging up halfway.
public final class RawHTTPConnection: @unchecked Sendable {
    private let socket: Int32
    /// Everything read so far.
    public private(set) var received: [UInt8] = []

    /// Connects to 127.0.0.1:`port`. - Throws: `POSIXError` when nothing listens.
    public init(port: UInt16) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(socket) }

    /// Sends a GET for `target` with `headers`.
    public func get(_ target: String, headers: [String: String] = [:]) {
        let lines = ["GET \(target) HTTP/1.1", "Host: 127.0.0.1"] + headers.map { "\($0.key): \($0.value)" }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        _ = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends `text` as it is. - Returns: `false` when the connection is gone.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until what was received contains `text` or `timeout` passes (or the server closes).
    /// Blocks its thread: call it through ``onOwnThread(_:)``. - Returns: whether `text` came.
    public func read(until text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !receivedText.contains(text) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(left, 1) * 1000)) >= 0 else { return false }
            if descriptor.revents == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return receivedText.contains(text) }
            received += buffer.prefix(count)
        }
        return true
    }

    /// Whether the server closed the connection within `timeout`.
    public func closedByServer(within timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 200) >= 0 else { return true }
            if descriptor.revents == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return true }
            received += buffer.prefix(count)
        }
        return false
    }

    /// Closes the client's side of the connection (the server sees it end).
    public func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    public var receivedText: String { String(decoding: received, as: UTF8.self) }
}

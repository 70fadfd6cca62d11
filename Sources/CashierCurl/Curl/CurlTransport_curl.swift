internal import CCurl
internal import CCurlShims
public import Cashier
import Foundation
import Synchronization

/// An `HTTPTransport` on libcurl: the merchant server's for every provider call and webhook.
///
/// WeChat Pay v2 refunds (`secapi/pay/refund`) and Apple Pay merchant validation require the
/// merchant's certificate on the TLS connection, which URLSession on Linux cannot present; and
/// URLSession on Linux can take the whole process down under concurrent load (a fatal error in
/// swift-corelibs-foundation's task registry, seen in this project's tests), which a server
/// must not risk. Calls run on a few threads of libcurl's own (one per core, up to four), never
/// on Swift's cooperative pool: each drives its transfers together, waiting on their sockets in
/// `epoll`, so calls waiting on slow servers hold no thread each and a slow one holds up no
/// other. Connections stay open between calls to the same host, and a new one resumes the TLS
/// session of the process's last handshake with that host and certificate, whichever transport
/// made it.
///
/// ```swift
/// let transport = CurlTransport(clientCertificate: .init(certificatePath: "apiclient_cert.pem", keyPath: "apiclient_key.pem"))
/// let client = WeChatPay.V2.Client(merchant: merchant, transport: transport)
/// ```
public struct CurlTransport: HTTPTransport {
    /// The client certificate and its key, as PEM files (kept on the server, read by libcurl).
    public struct ClientCertificate: Sendable {
        public let certificatePath: String
        public let keyPath: String

        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    private let clientCertificate: ClientCertificate?
    private let trustedCAPath: String?
    private let handles: Handles

    /// How many finished transfers' handles a transport keeps for its next calls (the open
    /// connections are kept by the threads that run the transfers, for every transport).
    public static let maximumIdleHandles = 8

    /// - Parameters:
    ///   - clientCertificate: presented when the server asks for one.
    ///   - trustedCAPath: a PEM bundle to trust instead of the system's (tests use their own CA).
    public init(clientCertificate: ClientCertificate? = nil, trustedCAPath: String? = nil) {
        self.clientCertificate = clientCertificate
        self.trustedCAPath = trustedCAPath
        handles = Handles()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let handle = handles.take() else { throw PaymentError(.transport, "libcurl could not start a transfer") }
        defer { handles.give(back: handle) }
        let collected = Collected()
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for field in request.headers where !field.name.contains(where: \.isNewline) && !field.value.contains(where: \.isNewline) {
            headers = curl_slist_append(headers, "\(field.name): \(field.value)")
        }
        try Self.configure(handle, for: request, headers: headers, collected: collected, clientCertificate, trustedCAPath)
        // `collected` lives on until the headers are read below, after the transfer.
        let result = await withCheckedContinuation { continuation in
            CurlMultiLoop.next().start(.init(handle: handle, done: { continuation.resume(returning: $0) }))
        }
        guard result == CURLE_OK else {
            throw PaymentError(
                .transport,
                "\(request.method) \(request.url.host ?? "")\(request.url.path) got no response: \(String(cString: curl_easy_strerror(result)))"
            )
        }
        var responseHeaders = HTTPHeaders()
        // Keep only the last response's headers (after any 100-continue or redirect).
        let lastBlock = collected.headerLines.split(whereSeparator: \.isEmpty).last ?? []
        for line in lastBlock.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            responseHeaders.add(String(line[..<colon]), ASCIIWhitespace.trimmed(line[line.index(after: colon)...]))
        }
        return HTTPResponse(status: cashier_curl_response_code(handle), headers: responseHeaders, body: Data(collected.body))
    }

    /// Easy handles between transfers, kept so the next call does not make one. It owns C state
    /// and guards it with its lock: hence `@unchecked Sendable`.
    private final class Handles: @unchecked Sendable {
        private let lock = NSLock()
        private var idle: [UnsafeMutableRawPointer] = []

        /// An idle handle, reset, or a new one. A new one joins the TLS sessions' share once:
        /// `curl_easy_reset` keeps a handle's shares.
        func take() -> UnsafeMutableRawPointer? {
            if let handle = lock.withLock({ idle.popLast() }) {
                curl_easy_reset(handle)
                return handle
            }
            guard let handle = curl_easy_init() else { return nil }
            guard cashier_curl_set_share(handle, CurlTLSSessions.share) == CURLE_OK else {
                curl_easy_cleanup(handle)
                return nil
            }
            return handle
        }

        func give(back handle: UnsafeMutableRawPointer) {
            let kept = lock.withLock {
                guard idle.count < CurlTransport.maximumIdleHandles else { return false }
                idle.append(handle)
                return true
            }
            if !kept { curl_easy_cleanup(handle) }
        }

        deinit {
            for handle in idle { curl_easy_cleanup(handle) }
        }
    }

    /// What the callbacks fill in, on the transfer's thread, before the caller reads it.
    private final class Collected {
        var body: [UInt8] = []
        var headerLines: [String] = []
    }

    private static let bodyCallback: cashier_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
        data.withMemoryRebound(to: UInt8.self, capacity: size * count) {
            collected.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size * count))
        }
        return size * count
    }

    private static let headerCallback: cashier_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
        let line = data.withMemoryRebound(to: UInt8.self, capacity: size * count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: size * count), as: UTF8.self)
        }
        collected.headerLines.append(ASCIIWhitespace.trimmed(line))
        return size * count
    }

    /// Sets `handle`'s options for `request`; the callbacks write into `collected`.
    private static func configure(
        _ handle: UnsafeMutableRawPointer, for request: HTTPRequest, headers: UnsafeMutablePointer<curl_slist>?, collected: Collected,
        _ clientCertificate: ClientCertificate?, _ trustedCAPath: String?
    ) throws {
        let milliseconds =
            Int(request.timeout.components.seconds) * 1000 + Int(request.timeout.components.attoseconds / 1_000_000_000_000_000)
        var code = cashier_curl_set_string(handle, CURLOPT_URL, request.url.absoluteString)
        code = code == CURLE_OK ? cashier_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method) : code
        code = code == CURLE_OK ? cashier_curl_set_long(handle, CURLOPT_TIMEOUT_MS, max(1, milliseconds)) : code
        code = code == CURLE_OK ? cashier_curl_set_long(handle, CURLOPT_NOSIGNAL, 1) : code
        code = code == CURLE_OK ? cashier_curl_set_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS)) : code
        code = code == CURLE_OK ? cashier_curl_set_headers(handle, headers) : code
        code =
            code == CURLE_OK
            ? cashier_curl_set_callbacks(handle, bodyCallback, headerCallback, Unmanaged.passUnretained(collected).toOpaque()) : code
        if code == CURLE_OK, !request.body.isEmpty {
            code = request.body.withUnsafeBytes { cashier_curl_set_body(handle, $0.baseAddress, $0.count) }
        }
        if code == CURLE_OK, let clientCertificate {
            code = cashier_curl_set_string(handle, CURLOPT_SSLCERT, clientCertificate.certificatePath)
            code = code == CURLE_OK ? cashier_curl_set_string(handle, CURLOPT_SSLKEY, clientCertificate.keyPath) : code
            code = code == CURLE_OK ? cashier_curl_set_string(handle, CURLOPT_SSLCERTTYPE, "PEM") : code
        }
        if code == CURLE_OK, let trustedCAPath {
            code = cashier_curl_set_string(handle, CURLOPT_CAINFO, trustedCAPath)
        }
        guard code == CURLE_OK else {
            throw PaymentError(.transport, "libcurl refused an option: \(String(cString: curl_easy_strerror(code)))")
        }
    }
}

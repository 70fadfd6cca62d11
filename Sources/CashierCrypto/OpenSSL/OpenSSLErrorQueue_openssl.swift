internal import COpenSSL

/// Reads and clears OpenSSL's thread-local error queue.
enum OpenSSLErrorQueue {
    /// Every queued error as OpenSSL's text, oldest first; the queue is left empty.
    static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }

    /// Empties the queue without reading it (after an expected failure such as a format probe).
    static func clear() {
        ERR_clear_error()
    }

    /// A `CryptoError` carrying the current queue.
    static func error(_ code: CryptoError.Code, _ reason: String) -> CryptoError {
        CryptoError(code, reason, openSSLErrors: drain())
    }
}

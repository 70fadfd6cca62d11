internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG.
///
/// ```swift
/// let nonce = SecureRandom.bytes(count: 16)
/// let token = SecureRandom.alphanumeric(count: 32)
/// ```
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "a negative byte count")
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        precondition(ok == 1, "RAND_bytes failed: \(OpenSSLErrorQueue.drain())")
        return out
    }

    /// A random string of `count` characters from `alphabet`, drawn without modulo bias.
    /// - Parameters:
    ///   - count: the length of the result.
    ///   - alphabet: the characters to draw from; 2 to 256 distinct ASCII characters.
    public static func string(count: Int, alphabet: String) -> String {
        let symbols = Array(alphabet.utf8)
        precondition((2...256).contains(symbols.count), "an alphabet needs 2 to 256 symbols")
        let limit = 256 - (256 % symbols.count)  // reject bytes at or above this to keep it uniform
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            for byte in bytes(count: count - out.count + 8) where Int(byte) < limit && out.count < count {
                out.append(symbols[Int(byte) % symbols.count])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A random string of ASCII letters and digits (WeChat `nonce_str`, API keys).
    public static func alphanumeric(count: Int) -> String {
        string(count: count, alphabet: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    }
}

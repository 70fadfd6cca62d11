/// Random identifiers from the system's generator (`getrandom`), drawn eight bytes at a time.
///
/// Record ids, trade numbers and event ids are made on every order, payment and logged event;
/// each `SystemRandomNumberGenerator.next()` is a system call, so the bytes are taken from each
/// 64-bit draw in turn instead of one draw per character, and no `UUID` (which reads
/// `/dev/urandom` through a file it opens and closes every time on Linux). `CashierCrypto`'s
/// `SecureRandom` does the same from OpenSSL for the libraries that have it; this module and
/// the store, which may not import OpenSSL, use this one.
///
/// ```swift
/// RandomText.alphanumeric(count: 24)  // "q3ZtR0…"
/// RandomText.hex(byteCount: 16)                                      // 32 lowercase hex digits
/// ```
public enum RandomText {
    /// Digits, lowercase and uppercase letters.
    public static let alphanumerics = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    /// `count` characters from `alphabet`, each equally likely (bytes that would favour the
    /// alphabet's first characters are drawn again).
    /// - Parameters:
    ///   - count: how many characters.
    ///   - alphabet: 2 to 256 ASCII characters.
    public static func string(count: Int, alphabet: [UInt8]) -> String {
        precondition((2...256).contains(alphabet.count), "an alphabet needs 2 to 256 symbols")
        let limit = 256 - 256 % alphabet.count
        var bytes = RandomBytes()
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let byte = Int(bytes.next())
            if byte < limit { out.append(alphabet[byte % alphabet.count]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `count` random letters and digits (the record ids' alphabet, ``alphanumerics``).
    /// - Parameter count: how many characters.
    public static func alphanumeric(count: Int) -> String {
        string(count: count, alphabet: alphanumerics)
    }

    /// Random bytes as lowercase hexadecimal: as many random digits (16 divides 256, so no byte
    /// is ever redrawn).
    /// - Parameter byteCount: how many bytes (the text has twice as many digits).
    public static func hex(byteCount: Int) -> String {
        string(count: byteCount * 2, alphabet: hexDigits)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The bytes of successive 64-bit draws.
    private struct RandomBytes {
        private var generator = SystemRandomNumberGenerator()
        private var word: UInt64 = 0
        private var left = 0

        mutating func next() -> UInt8 {
            if left == 0 {
                word = generator.next()
                left = 8
            }
            defer {
                word >>= 8
                left -= 1
            }
            return UInt8(truncatingIfNeeded: word)
        }
    }
}

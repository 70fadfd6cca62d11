public import Foundation

/// The zlib format (RFC 1950: a two-byte header, deflate, an Adler-32 trailer) — PHP's
/// `gzcompress`, Python's `zlib.compress`. UnionPay's file download (`txnType=76`) answers
/// `fileContent` as base64 of this around a zip.
public enum Zlib {
    /// `true` when `data` starts with a valid zlib header (CMF/FLG check bits, deflate method).
    public static func isZlib(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let first = data[data.startIndex]
        let second = data[data.startIndex + 1]
        return first & 0x0F == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }

    /// Inflates one zlib stream; bytes after its end are refused.
    /// - Throws: ``ArchiveError`` for a damaged or truncated stream, trailing bytes, or output
    ///   beyond `limit`.
    public static func decompress(_ data: Data, limit: Int = Gzip.defaultLimit) throws -> Data {
        // 15 window bits: a zlib header and trailer (Adler-32 checked by zlib).
        try ZlibStream.inflate(data, windowBits: 15, format: "zlib", limit: limit) { input, consumed in
            guard consumed == input.count else { throw ArchiveError("\(input.count - consumed) bytes follow the zlib stream") }
            return .finish
        }
    }

    /// Deflates `data` into one zlib stream.
    public static func compress(_ data: Data, level: Int32 = 6) throws -> Data {
        try ZlibStream.deflate(data, windowBits: 15, level: level, format: "zlib")
    }
}

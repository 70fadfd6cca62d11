public import Foundation

/// gzip (RFC 1952) through zlib: WeChat Pay v3 serves bills gzipped on request (`tar_type=GZIP`).
public enum Gzip {
    /// `true` when `data` starts with gzip's magic bytes.
    public static func isGzip(_ data: Data) -> Bool { data.starts(with: [0x1F, 0x8B]) }

    /// The default ceiling on what one file may inflate to: bills are megabytes, not gigabytes.
    public static let defaultLimit = 512 * 1024 * 1024

    /// Inflates a gzip stream (several members are read one after another, as gunzip does).
    /// - Throws: ``ArchiveError`` for a damaged or truncated stream, or output beyond `limit`.
    public static func decompress(_ data: Data, limit: Int = defaultLimit) throws -> Data {
        // 15 window bits + 16: a gzip header and trailer (CRC-32 and length checked by zlib).
        try ZlibStream.inflate(data, windowBits: 15 + 16, format: "gzip", limit: limit, afterEnd: afterMember)
    }

    /// What follows a member: another (concatenated gzip files are one file to gunzip), or the end.
    static func afterMember(_ input: Data, _ consumed: Int) -> ZlibStream.AfterEnd {
        consumed < input.count && input[input.startIndex + consumed] == 0x1F ? .readNext : .finish
    }

    /// Deflates `data` into one gzip member.
    public static func compress(_ data: Data, level: Int32 = 6) throws -> Data {
        try ZlibStream.deflate(data, windowBits: 15 + 16, level: level, format: "gzip")
    }
}

public import Foundation

/// A gzip stream (RFC 1952) inflated a chunk at a time, for ``ByteLines``: a bill of hundreds of
/// megabytes is read through a few hundred kilobytes. Several members are read one after
/// another, as gunzip does (``Gzip/decompress(_:limit:)``, whole); zlib checks each member's
/// CRC-32 and length.
public final class GzipChunks {
    private let inflater: ZlibStream.Inflater

    /// - Throws: ``ArchiveError`` when `data` is not gzip.
    public init(_ data: Data) throws {
        guard Gzip.isGzip(data) else { throw ArchiveError("the data is not gzip") }
        // 15 window bits + 16: a gzip header and trailer.
        inflater = try ZlibStream.Inflater(data, windowBits: 15 + 16, format: "gzip", afterEnd: Gzip.afterMember)
    }

    /// The next chunk of the inflated text; `nil` at the end of the last member.
    /// - Throws: ``ArchiveError`` for a damaged or truncated stream.
    public func next() throws -> [UInt8]? {
        try inflater.next()
    }
}

// C: zlib (a gzip stream inflated a chunk at a time). Every call into zlib here is in this file.
import CZlib
public import Foundation

/// A gzip stream (RFC 1952) inflated a chunk at a time, for ``ByteLines``: a bill of hundreds of
/// megabytes is read through a few hundred kilobytes. Several members are read one after
/// another, as gunzip does; zlib checks each member's CRC-32 and length.
public final class GzipChunks {
    /// The compressed bytes, read where they are (not copied: a bill's are tens of megabytes).
    private let input: Data
    private var consumed = 0
    /// zlib keeps a pointer back to its stream, so the stream stays where it was made.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var finished = false
    /// The size of the chunks handed out.
    static let chunkSize = 256 * 1024

    /// - Throws: ``ArchiveError`` when `data` is not gzip.
    public init(_ data: Data) throws {
        guard Gzip.isGzip(data) else {
            stream.deallocate()
            throw ArchiveError("the data is not gzip")
        }
        input = data
        stream.initialize(to: z_stream())
        // 15 window bits + 16: a gzip header and trailer.
        guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            throw ArchiveError("zlib could not start inflating")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// The next chunk of the inflated text; `nil` at the end of the last member.
    /// - Throws: ``ArchiveError`` for a damaged or truncated stream.
    public func next() throws -> [UInt8]? {
        guard !finished else { return nil }
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var produced = 0
        while produced < chunk.count {
            let total = input.count
            let status: Int32 = input.withUnsafeBytes { inputBytes in
                chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    let inputBuffer = inputBytes.bindMemory(to: UInt8.self)
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress.map { $0 + consumed })
                    stream.pointee.avail_in = UInt32(total - consumed)
                    stream.pointee.next_out = chunkBuffer.baseAddress.map { $0 + produced }
                    stream.pointee.avail_out = UInt32(chunkBuffer.count - produced)
                    let before = chunkBuffer.count - produced
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    consumed = total - Int(stream.pointee.avail_in)
                    produced += before - Int(stream.pointee.avail_out)
                    return status
                }
            }
            switch status {
            case Z_STREAM_END:
                // Another member may follow (concatenated gzip files are one file to gunzip).
                if consumed < total && input[input.startIndex + consumed] == 0x1F {
                    guard inflateReset(stream) == Z_OK else { throw ArchiveError("zlib could not read the next gzip member") }
                } else {
                    finished = true
                    return produced > 0 ? Array(chunk[0..<produced]) : nil
                }
            case Z_OK, Z_BUF_ERROR:
                if consumed == total && produced < chunk.count { throw ArchiveError("the gzip stream is truncated") }
            default:
                let reason =
                    stream.pointee.msg.map { String(cString: $0) } ?? zError(status).map { String(cString: $0) } ?? "code \(status)"
                throw ArchiveError("the gzip stream is damaged (\(reason))")
            }
        }
        return chunk
    }
}

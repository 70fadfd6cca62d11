// C: zlib (gzip streams). Every call into zlib is in this file.
import CZlib
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
        var stream = z_stream()
        // 15 window bits + 16: a gzip header and trailer (CRC-32 and length checked by zlib).
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ArchiveError("zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = [UInt8](data)
        let total = input.count
        var consumed = 0
        while true {
            let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
                chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_in = inputBuffer.baseAddress.map { $0 + consumed }
                    stream.avail_in = UInt32(total - consumed)
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = UInt32(chunkBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    consumed = total - Int(stream.avail_in)
                    return status
                }
            }
            let produced = chunk.count - Int(stream.avail_out)
            output.append(contentsOf: chunk[0..<produced])
            guard output.count <= limit else { throw ArchiveError("the gzip stream inflates to more than \(limit) bytes") }
            switch status {
            case Z_STREAM_END:
                // Another member may follow (concatenated gzip files are one file to gunzip).
                guard consumed < total, input[consumed] == 0x1F else { return output }
                guard inflateReset(&stream) == Z_OK else { throw ArchiveError("zlib could not read the next gzip member") }
            case Z_OK:
                if consumed == total && produced == 0 { throw ArchiveError("the gzip stream is truncated") }
            case Z_BUF_ERROR where consumed == total:
                throw ArchiveError("the gzip stream is truncated")
            case Z_BUF_ERROR:
                continue
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? zError(status).map { String(cString: $0) } ?? "code \(status)"
                throw ArchiveError("the gzip stream is damaged (\(reason))")
            }
        }
    }

    /// Deflates `data` into one gzip member.
    public static func compress(_ data: Data, level: Int32 = 6) throws -> Data {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { throw ArchiveError("zlib could not start deflating") }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw ArchiveError("zlib could not finish the gzip stream") }
        return Data(output[0..<Int(stream.total_out)])
    }
}

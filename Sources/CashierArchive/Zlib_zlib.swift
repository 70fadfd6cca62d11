// C: zlib (zlib streams, RFC 1950). Every call into zlib for this format is in this file.
import CZlib
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
        var stream = z_stream()
        // 15 window bits: a zlib header and trailer (Adler-32 checked by zlib).
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
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
            guard output.count <= limit else { throw ArchiveError("the zlib stream inflates to more than \(limit) bytes") }
            switch status {
            case Z_STREAM_END:
                guard consumed == total else { throw ArchiveError("\(total - consumed) bytes follow the zlib stream") }
                return output
            case Z_OK:
                if consumed == total && produced == 0 { throw ArchiveError("the zlib stream is truncated") }
            case Z_BUF_ERROR where consumed == total:
                throw ArchiveError("the zlib stream is truncated")
            case Z_BUF_ERROR:
                continue
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? zError(status).map { String(cString: $0) } ?? "code \(status)"
                throw ArchiveError("the zlib stream is damaged (\(reason))")
            }
        }
    }

    /// Deflates `data` into one zlib stream.
    public static func compress(_ data: Data, level: Int32 = 6) throws -> Data {
        var stream = z_stream()
        guard deflateInit_(&stream, level, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ArchiveError("zlib could not start deflating")
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 16)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw ArchiveError("zlib could not finish the stream") }
        return Data(output[0..<Int(stream.total_out)])
    }
}

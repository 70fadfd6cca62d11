// C: zlib (the inflate and deflate loops both formats share). Every call into zlib is in this file.
import CZlib
import Foundation

/// The deflate stream under both of zlib's wrappers: gzip (RFC 1952, ``Gzip``) and zlib (RFC 1950,
/// ``Zlib``). zlib's window-bits argument chooses the wrapper: 15 for zlib, 15 + 16 for gzip.
enum ZlibStream {
    /// What follows the end of one stream, as the wrapper reads it.
    enum AfterEnd {
        /// The data is read to its end: the output is returned.
        case finish
        /// Another stream follows (a further gzip member): it is read into the same output.
        case readNext
    }

    /// Inflates `data`; at each stream's end `afterEnd(input, consumed)` says what comes next.
    /// - Throws: ``ArchiveError`` naming `format` for a damaged or truncated stream, or output
    ///   beyond `limit`, or whatever `afterEnd` throws.
    static func inflate(
        _ data: Data, windowBits: Int32, format: String, limit: Int, afterEnd: ([UInt8], Int) throws -> AfterEnd
    ) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
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
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    consumed = total - Int(stream.avail_in)
                    return status
                }
            }
            let produced = chunk.count - Int(stream.avail_out)
            output.append(contentsOf: chunk[0..<produced])
            guard output.count <= limit else { throw ArchiveError("the \(format) stream inflates to more than \(limit) bytes") }
            switch status {
            case Z_STREAM_END:
                switch try afterEnd(input, consumed) {
                case .finish: return output
                case .readNext:
                    guard inflateReset(&stream) == Z_OK else { throw ArchiveError("zlib could not read the next \(format) member") }
                }
            case Z_OK:
                if consumed == total && produced == 0 { throw ArchiveError("the \(format) stream is truncated") }
            case Z_BUF_ERROR where consumed == total:
                throw ArchiveError("the \(format) stream is truncated")
            case Z_BUF_ERROR:
                continue
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? zError(status).map { String(cString: $0) } ?? "code \(status)"
                throw ArchiveError("the \(format) stream is damaged (\(reason))")
            }
        }
    }

    /// Deflates `data` into one stream of the wrapper `windowBits` chooses.
    static func deflate(_ data: Data, windowBits: Int32, level: Int32, format: String) throws -> Data {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
                == Z_OK
        else { throw ArchiveError("zlib could not start deflating") }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        // deflateBound covers zlib's wrapper; gzip's header and trailer are 18 bytes at most beyond it.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw ArchiveError("zlib could not finish the \(format) stream") }
        return Data(output[0..<Int(stream.total_out)])
    }
}

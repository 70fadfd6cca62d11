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
        _ data: Data, windowBits: Int32, format: String, limit: Int, afterEnd: @escaping (Data, Int) throws -> AfterEnd
    ) throws -> Data {
        let inflater = try Inflater(data, windowBits: windowBits, format: format, afterEnd: afterEnd)
        var output = Data()
        while let chunk = try inflater.next() {
            output.append(contentsOf: chunk)
            guard output.count <= limit else { throw ArchiveError("the \(format) stream inflates to more than \(limit) bytes") }
        }
        return output
    }

    /// A deflate stream inflated a chunk at a time: the loop both ``inflate(_:windowBits:format:limit:afterEnd:)``
    /// (a whole file) and ``GzipChunks`` (a bill read as it inflates) run. The compressed bytes are
    /// read where they are, not copied.
    final class Inflater {
        private let input: Data
        private var consumed = 0
        /// zlib keeps a pointer back to its stream, so the stream stays where it was made.
        private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        private let format: String
        private let afterEnd: (Data, Int) throws -> AfterEnd
        private var finished = false
        static let chunkSize = 256 * 1024

        init(_ data: Data, windowBits: Int32, format: String, afterEnd: @escaping (Data, Int) throws -> AfterEnd) throws {
            (input, self.format, self.afterEnd) = (data, format, afterEnd)
            stream.initialize(to: z_stream())
            guard inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                throw ArchiveError("zlib could not start inflating")
            }
        }

        deinit {
            inflateEnd(stream)
            stream.deallocate()
        }

        /// The next chunk of the inflated bytes; `nil` once the last stream has ended.
        /// - Throws: ``ArchiveError`` for a damaged or truncated stream, or what `afterEnd` throws.
        func next() throws -> [UInt8]? {
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
                    switch try afterEnd(input, consumed) {
                    case .finish:
                        finished = true
                        return produced > 0 ? Array(chunk[0..<produced]) : nil
                    case .readNext:
                        guard inflateReset(stream) == Z_OK else { throw ArchiveError("zlib could not read the next \(format) member") }
                    }
                case Z_OK, Z_BUF_ERROR:
                    if consumed == total && produced < chunk.count { throw ArchiveError("the \(format) stream is truncated") }
                default:
                    let reason =
                        stream.pointee.msg.map { String(cString: $0) } ?? zError(status).map { String(cString: $0) } ?? "code \(status)"
                    throw ArchiveError("the \(format) stream is damaged (\(reason))")
                }
            }
            return chunk
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

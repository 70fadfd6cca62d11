public import Foundation

/// A text read a line at a time from chunks of bytes as they come — a gzip stream inflating
/// (``GzipChunks``), a zip entry (``ZipArchive/EntryChunks``), bytes in memory — so a bill of a
/// million lines is read without its whole text in memory. `\n`, `\r\n` and `\r` end a line;
/// empty lines are skipped. Each line is handed out as bytes: the reader decodes them (UTF-8, GBK).
///
/// ```swift
/// var lines = ByteLines(chunks: try GzipChunks(gzipped).next)
/// while let line = try lines.next() { print(String(decoding: line, as: UTF8.self)) }
/// ```
public struct ByteLines {
    private let nextChunk: () throws -> [UInt8]?
    private var buffer: [UInt8] = []
    /// Where the line not yet handed out starts in `buffer`.
    private var start = 0
    /// Where the search for that line's end goes on (the bytes before it hold none).
    private var scanned = 0
    private var ended = false

    /// Lines of the chunks `next` returns until it returns `nil`.
    public init(chunks next: @escaping () throws -> [UInt8]?) {
        nextChunk = next
    }

    /// Lines of bytes already in memory.
    public init(_ bytes: [UInt8]) {
        var rest: [UInt8]? = bytes
        self.init {
            defer { rest = nil }
            return rest
        }
    }

    /// Lines of `data`.
    public init(_ data: Data) {
        self.init([UInt8](data))
    }

    /// The next non-empty line's bytes, without its end; `nil` after the last.
    /// - Throws: what the chunks' source throws (a damaged or truncated stream).
    public mutating func next() throws -> ArraySlice<UInt8>? {
        while true {
            let end = buffer.withUnsafeBufferPointer { bytes in
                var index = scanned
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                return index
            }
            if end < buffer.count {
                let line = buffer[start..<end]
                start = end + 1
                scanned = start
                if line.isEmpty { continue }
                return line
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                scanned = start
                return line
            }
            // No line end in what is here: drop what was handed out, and read on.
            buffer.removeSubrange(0..<start)
            scanned = end - start
            start = 0
            if let chunk = try nextChunk() { buffer += chunk } else { ended = true }
        }
    }
}

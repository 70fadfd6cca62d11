public import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
    private let systemWrite = Darwin.write
#endif

extension FileHandle {
    /// Reads until end of file, retrying reads that a signal interrupts.
    ///
    /// Foundation's `readDataToEndOfFile()` and `availableData` stop the process with a fatal
    /// error when `read(2)` fails with `EINTR`, which a process that runs children (and so
    /// receives `SIGCHLD`) meets sooner or later.
    /// - Throws: `POSIXError` for any other read error.
    public func readToEndRetrying() throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = try read(into: &buffer), count > 0 { data.append(contentsOf: buffer.prefix(count)) }
        return data
    }

    /// One `read(2)` of up to `limit` bytes, retried on `EINTR`: what is there now (waiting
    /// until something is), empty at end of file.
    public func readRetrying(upTo limit: Int = 65_536) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = try read(into: &buffer)
        return Data(buffer.prefix(count))
    }

    /// One `read(2)` into `buffer`, retried on `EINTR`; the byte count, 0 at end of file.
    private func read(into buffer: inout [UInt8]) throws -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
    }

    /// Writes all of `data`, retrying writes that a signal interrupts or cuts short.
    /// - Throws: `POSIXError` (e.g. `EPIPE` when the reader has gone).
    public func writeRetrying(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count >= 0 {
                    offset += count
                } else if errno != EINTR {
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
            }
        }
    }
}

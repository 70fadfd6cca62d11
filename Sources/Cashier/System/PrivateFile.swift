public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Files that hold secrets or payment records, readable and writable by their owner only (0600)
/// from their first byte — not written with the process's umask and narrowed afterwards.
public enum PrivateFile {
    /// Writes `data` to `path`: a temporary file created 0600 beside it, synced, then renamed
    /// over it (a reader never sees half a file).
    /// - Throws: `POSIXError` when the folder cannot be written.
    public static func write(_ data: Data, to path: String) throws {
        let temporary = path + ".\(UUID().uuidString.prefix(8)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var written = 0
        let failed = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count <= 0 { return true }
                written += count
            }
            return false
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard !failed, synced, rename(temporary, path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            unlink(temporary)
            throw POSIXError(code)
        }
    }

    /// Creates an empty file at `path`, 0600, unless one is there already (whose permissions are
    /// its owner's choice). SQLite gives a database's `-wal` and `-shm` files the database's own.
    public static func createIfMissing(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }
}

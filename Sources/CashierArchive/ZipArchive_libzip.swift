// C: libzip (zip archives). Every call into libzip is in this file.
import CZip
public import Foundation

/// Zip archives through libzip: Alipay serves its bills as a zip of GBK CSV files (the detail
/// list and its summary) whose names are GBK bytes without zip's UTF-8 flag.
public enum ZipArchive {
    /// One file in an archive.
    public struct Entry: Sendable, Equatable {
        /// The name's bytes as stored (UTF-8, or GBK in Alipay's archives).
        public let rawName: [UInt8]
        public let data: Data

        public init(rawName: [UInt8], data: Data) {
            self.rawName = rawName
            self.data = data
        }

        /// The name as text: UTF-8 when it is valid UTF-8, else GB 18030 (a superset of GBK).
        public var name: String {
            if let utf8 = String(validating: rawName, as: UTF8.self) { return utf8 }
            return String(data: Data(rawName), encoding: String.Encoding(rawValue: 0x8000_0632)) ?? String(decoding: rawName, as: UTF8.self)
        }
    }

    /// `true` when `data` starts like a zip archive.
    public static func isZip(_ data: Data) -> Bool { data.starts(with: [0x50, 0x4B, 0x03, 0x04]) }

    /// Every file in the archive, inflated (and checked against its CRC-32 by libzip).
    /// - Throws: ``ArchiveError`` for a damaged archive, or files beyond `limit` bytes together.
    public static func entries(of data: Data, limit: Int = 512 * 1024 * 1024) throws -> [Entry] {
        try data.withUnsafeBytes { buffer -> [Entry] in
            var error = zip_error_t()
            zip_error_init(&error)
            defer { zip_error_fini(&error) }
            guard let source = zip_source_buffer_create(buffer.baseAddress, UInt64(buffer.count), 0, &error) else {
                throw ArchiveError("libzip could not read the bytes: \(String(cString: zip_error_strerror(&error)))")
            }
            guard let archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
                zip_source_free(source)
                throw ArchiveError("not a zip archive libzip can read: \(String(cString: zip_error_strerror(&error)))")
            }
            defer { zip_discard(archive) }  // frees the source too
            var entries: [Entry] = []
            var total = 0
            let count = zip_get_num_entries(archive, 0)
            for index in 0..<UInt64(max(count, 0)) {
                guard let name = zip_get_name(archive, index, zip_flags_t(ZIP_FL_ENC_RAW)) else { continue }
                let rawName = Array(
                    UnsafeBufferPointer(start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name)))
                if rawName.last == UInt8(ascii: "/") { continue }  // a directory
                guard let file = zip_fopen_index(archive, index, 0) else {
                    throw ArchiveError("entry \(index) cannot be opened: \(String(cString: zip_strerror(archive)))")
                }
                defer { zip_fclose(file) }
                var contents = Data()
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let read = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
                    if read < 0 { throw ArchiveError("entry \(index) is damaged: \(String(cString: zip_file_strerror(file)))") }
                    if read == 0 { break }
                    contents.append(contentsOf: chunk[0..<Int(read)])
                    total += Int(read)
                    guard total <= limit else { throw ArchiveError("the archive inflates to more than \(limit) bytes") }
                }
                entries.append(Entry(rawName: rawName, data: contents))
            }
            return entries
        }
    }

    /// One file of an archive inflated a chunk at a time, for ``ByteLines``: the first whose name
    /// `matches`, read without the others or the whole of it in memory (libzip checks its CRC-32 at its end).
    public final class EntryChunks {
        private let archive: OpaquePointer
        private let file: OpaquePointer
        /// The entry's name as text (``Entry/name``).
        public let name: String
        static let chunkSize = 256 * 1024

        /// - Throws: ``ArchiveError`` for a damaged archive, or one without such a file (naming those it holds).
        public init(in data: Data, where matches: (String) -> Bool) throws {
            // libzip reads the bytes where they are until the archive is closed: a copy of its own, freed with it.
            let copy = malloc(max(data.count, 1))!
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
            }
            var error = zip_error_t()
            zip_error_init(&error)
            defer { zip_error_fini(&error) }
            guard let source = zip_source_buffer_create(copy, UInt64(data.count), 1, &error) else {
                free(copy)
                throw ArchiveError("libzip could not read the bytes: \(String(cString: zip_error_strerror(&error)))")
            }
            guard let archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
                zip_source_free(source)
                throw ArchiveError("not a zip archive libzip can read: \(String(cString: zip_error_strerror(&error)))")
            }
            var names: [String] = []
            for index in 0..<UInt64(max(zip_get_num_entries(archive, 0), 0)) {
                guard let raw = zip_get_name(archive, index, zip_flags_t(ZIP_FL_ENC_RAW)) else { continue }
                let rawName = Array(
                    UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
                if rawName.last == UInt8(ascii: "/") { continue }  // a directory
                let name = Entry(rawName: rawName, data: Data()).name
                names.append(name)
                guard matches(name) else { continue }
                guard let file = zip_fopen_index(archive, index, 0) else {
                    let reason = String(cString: zip_strerror(archive))
                    zip_discard(archive)
                    throw ArchiveError("entry \(index) cannot be opened: \(reason)")
                }
                (self.archive, self.file, self.name) = (archive, file, name)
                return
            }
            zip_discard(archive)  // frees the source and the copy
            throw ArchiveError("the archive has no such file (it holds \(names.joined(separator: ", ")))", heldFiles: names)
        }

        deinit {
            zip_fclose(file)
            zip_discard(archive)
        }

        /// The next chunk of the file; `nil` at its end.
        /// - Throws: ``ArchiveError`` for a damaged entry (a CRC-32 that disagrees, a truncated stream).
        public func next() throws -> [UInt8]? {
            var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
            let read = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
            if read < 0 { throw ArchiveError("\(name) is damaged: \(String(cString: zip_file_strerror(file)))") }
            guard read > 0 else { return nil }
            if read < chunk.count { chunk.removeSubrange(Int(read)...) }
            return chunk
        }
    }

    /// An archive of `entries` (deflated), names stored as given.
    public static func make(_ entries: [Entry]) throws -> Data {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else { throw ArchiveError("libzip could not make a buffer") }
        defer { zip_source_free(source) }
        guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else {
            throw ArchiveError("libzip could not start an archive: \(String(cString: zip_error_strerror(&error)))")
        }
        zip_source_keep(source)  // the archive's close writes into it; it is read below
        for entry in entries {
            // libzip reads the bytes at close: a copy it frees itself.
            let copy = malloc(max(entry.data.count, 1))!
            entry.data.copyBytes(to: copy.assumingMemoryBound(to: UInt8.self), count: entry.data.count)
            guard let file = zip_source_buffer(archive, copy, UInt64(entry.data.count), 1) else {
                free(copy)
                zip_discard(archive)
                throw ArchiveError("libzip could not take an entry")
            }
            let name = entry.rawName + [0]
            let added = name.withUnsafeBufferPointer { pointer in
                pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: name.count) {
                    zip_file_add(archive, $0, file, zip_flags_t(ZIP_FL_OVERWRITE))
                }
            }
            guard added >= 0 else {
                zip_source_free(file)
                zip_discard(archive)
                throw ArchiveError("libzip could not add an entry")
            }
        }
        guard zip_close(archive) == 0 else {
            let reason = String(cString: zip_strerror(archive))
            zip_discard(archive)
            throw ArchiveError("libzip could not write the archive: \(reason)")
        }
        guard zip_source_open(source) == 0 else { throw ArchiveError("libzip could not read the archive back") }
        defer { zip_source_close(source) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let read = chunk.withUnsafeMutableBytes { zip_source_read(source, $0.baseAddress, UInt64($0.count)) }
            if read < 0 { throw ArchiveError("libzip could not read the archive back") }
            if read == 0 { break }
            output.append(contentsOf: chunk[0..<Int(read)])
        }
        return output
    }
}

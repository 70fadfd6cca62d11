import Foundation

/// A CSV file written row by row to disk (RFC 4180: CRLF, fields quoted when they hold a comma,
/// a quote or a line break), UTF-8 with a byte-order mark so Excel reads Chinese text. A field
/// that starts as a formula would (`=`, `+`, `-`, `@`, a tab or a carriage return) is written with a
/// leading `'`, so a description cannot run in a spreadsheet. Amounts are written as the decimal strings they are.
struct CSVFile {
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A new file in the temporary folder, readable by this user only.
    init(header: [String]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-export-\(UUID().uuidString).csv").path
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw RequestProblem("the export could not be written") }
        self.handle = handle
        try write(header)
    }

    /// - Throws: when the disk refuses the write (full, say): an export is whole or not at all.
    mutating func write(_ fields: [String]) throws {
        for (index, value) in fields.enumerated() {
            if index > 0 { buffer.append(0x2C) }
            Self.append(value, to: &buffer)
        }
        buffer += [0x0D, 0x0A]
        if buffer.count >= 64 * 1024 { try flush() }
    }

    /// Writes what is buffered and closes the file. - Returns: its path.
    mutating func finish() throws -> String {
        try flush()
        try handle.close()
        return path
    }

    /// Closes and deletes a file that will not be finished.
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    private mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.writeRetrying(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    static func field(_ value: String) -> String {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as one field, read and written as UTF-8 bytes (an export writes millions:
    /// reading them as characters was most of its time).
    static func append(_ value: String, to buffer: inout [UInt8]) {
        let utf8 = value.utf8
        let formula = utf8.first.map { [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D].contains($0) } == true && Double(value) == nil
        let quoted = utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        if quoted { buffer.append(0x22) }
        if formula { buffer.append(0x27) }
        if quoted {
            for byte in utf8 {
                buffer.append(byte)
                if byte == 0x22 { buffer.append(0x22) }
            }
            buffer.append(0x22)
        } else {
            buffer.append(contentsOf: utf8)
        }
    }
}

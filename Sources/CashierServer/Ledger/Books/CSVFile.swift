import Cashier
import Foundation

/// A CSV file written row by row to disk (RFC 4180: CRLF, fields quoted when they hold a comma,
/// a quote or a line break), UTF-8 with a byte-order mark so Excel reads Chinese text. A field
/// that starts as a formula would (`=`, `+`, `-`, `@`, a tab or a carriage return) is written with a
/// leading `'`, so a description cannot run in a spreadsheet. Amounts are written as the decimal strings they are.
struct CSVFile {
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = [0xEF, 0xBB, 0xBF]
    /// Fields written of the row ``field(_:)`` is writing.
    private var fieldsInRow = 0

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

    /// The next field of a row written a field at a time (``field(_:)``, ``field(_:_:)``,
    /// ``endRow()``): the export's payments, written from the store's values without a record between.
    mutating func field(_ value: String) {
        if fieldsInRow > 0 { buffer.append(0x2C) }
        fieldsInRow += 1
        Self.append(value, to: &buffer)
    }

    /// Text given as its UTF-8 bytes (`nil` for an empty field) as the next field of the row.
    mutating func field(bytes: UnsafeBufferPointer<UInt8>?) {
        if fieldsInRow > 0 { buffer.append(0x2C) }
        fieldsInRow += 1
        if let bytes { Self.append(bytes, to: &buffer) }
    }

    /// A time (`nil` for an empty field) as the next field of the row.
    mutating func field(_ date: Date?, _ stamp: inout ExportTimestamp) {
        if fieldsInRow > 0 { buffer.append(0x2C) }
        fieldsInRow += 1
        if let date { stamp.append(date, to: &buffer) }
    }

    /// An amount in minor units as the next field: `Money.decimalString`'s text.
    mutating func field(minorUnits: Int64, _ currency: Currency) {
        if fieldsInRow > 0 { buffer.append(0x2C) }
        fieldsInRow += 1
        let magnitude = minorUnits.magnitude
        if minorUnits < 0 { buffer.append(0x2D) }
        let places = currency.minorUnits
        guard places > 0 else {
            Self.appendDigits(magnitude, minimum: 1, to: &buffer)
            return
        }
        let scale = UInt64(currency.minorUnitsPerMajorUnit)
        Self.appendDigits(magnitude / scale, minimum: 1, to: &buffer)
        buffer.append(0x2E)
        Self.appendDigits(magnitude % scale, minimum: places, to: &buffer)
    }

    /// Ends the row ``field(_:)`` wrote.
    mutating func endRow() throws {
        fieldsInRow = 0
        buffer += [0x0D, 0x0A]
        if buffer.count >= 64 * 1024 { try flush() }
    }

    /// `value` in decimal, with zeros before it to `minimum` digits.
    private static func appendDigits(_ value: UInt64, minimum: Int, to buffer: inout [UInt8]) {
        let start = buffer.count
        var rest = value
        repeat {
            buffer.append(UInt8(truncatingIfNeeded: 0x30 + rest % 10))
            rest /= 10
        } while rest > 0
        while buffer.count - start < minimum { buffer.append(0x30) }
        buffer[start...].reverse()
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
    /// reading them as characters was most of its time, and then looking for the characters
    /// that need quotes through the generic `contains` a fifth of what was left).
    static func append(_ value: String, to buffer: inout [UInt8]) {
        if value.utf8.withContiguousStorageIfAvailable({ append($0, to: &buffer) }) == nil {
            Array(value.utf8).withUnsafeBufferPointer { append($0, to: &buffer) }
        }
    }

    private static func append(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        guard let first = utf8.first else { return }
        let formula =
            (first == 0x3D || first == 0x2B || first == 0x2D || first == 0x40 || first == 0x09 || first == 0x0D)
            && Double(String(decoding: utf8, as: UTF8.self)) == nil
        var quoted = false
        for byte in utf8 where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D {
            quoted = true
            break
        }
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

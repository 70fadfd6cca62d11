import CashierArchive
import Foundation
import TestSupport
import Testing

/// gzip and zip as the providers ship bills, checked against Python's gzip and zipfile (the
/// standard library's, independent of zlib's and libzip's callers here) both ways, and refused
/// when damaged.
@Suite struct ArchiveTests {
    static let gbk = String.Encoding(rawValue: 0x8000_0632)
    static let text = Data(("交易时间,商户订单号\r\n`2026-12-01 10:00:00,`C1\r\n" + String(repeating: "abc,", count: 5000)).utf8)

    /// Runs Python with `script`, `input` on stdin; its stdout.
    static func python(_ script: String, _ input: Data = Data()) async throws -> Data {
        let result = try await runSubprocess("/usr/bin/env", ["python3", "-c", script], stdin: input)
        try #require(result.status == 0, "python3 failed: \(result.stderr)")
        return Data(result.stdout.utf8)
    }

    static func pythonBytes(_ script: String, _ input: Data = Data()) async throws -> Data {
        // Hex on stdout: the subprocess runner reads text.
        let hex = try await python("import sys, binascii\n" + script + "\nsys.stdout.write(binascii.hexlify(out).decode())", input)
        let digits = Array(String(decoding: hex, as: UTF8.self).utf8)
        var bytes = Data()
        var index = 0
        while index + 1 < digits.count {
            bytes.append(UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)!)
            index += 2
        }
        return bytes
    }

    @Test func gzipRoundTripsWithPython() async throws {
        let ours = try Gzip.compress(Self.text)
        #expect(Gzip.isGzip(ours) && ours.count < Self.text.count)
        #expect(try Gzip.decompress(ours) == Self.text)
        // Python's gzip reads ours; ours reads Python's (two members, as `cat a.gz b.gz` makes).
        let theirs = try await Self.pythonBytes("import gzip\nout = gzip.decompress(sys.stdin.buffer.read())", ours)
        #expect(theirs == Self.text)
        let pythons = try await Self.pythonBytes(
            "import gzip\ndata = sys.stdin.buffer.read()\nout = gzip.compress(data[:100]) + gzip.compress(data[100:])", Self.text)
        #expect(try Gzip.decompress(pythons) == Self.text)
    }

    @Test func damagedOrTruncatedGzipIsRefused() throws {
        let ours = try Gzip.compress(Self.text)
        #expect(throws: ArchiveError.self) { try Gzip.decompress(ours.prefix(ours.count / 2)) }
        var flipped = ours
        flipped[flipped.count - 6] ^= 0xFF  // the CRC-32 in the trailer
        #expect(throws: ArchiveError.self) { try Gzip.decompress(flipped) }
        #expect(throws: ArchiveError.self) { try Gzip.decompress(Data("not gzip".utf8)) }
        // A bomb stops at the limit.
        let zeros = try Gzip.compress(Data(count: 1_000_000))
        #expect(throws: ArchiveError.self) { try Gzip.decompress(zeros, limit: 100_000) }
    }

    @Test func zipWithGBKNamesRoundTripsWithPython() async throws {
        let name = Array("20880000000000010156_20261201_业务明细.csv".data(using: Self.gbk)!)
        let ours = try ZipArchive.make([
            .init(rawName: name, data: Self.text), .init(rawName: Array("readme.txt".utf8), data: Data("hi".utf8)),
        ])
        #expect(ZipArchive.isZip(ours))
        let entries = try ZipArchive.entries(of: ours)
        #expect(entries.map(\.name) == ["20880000000000010156_20261201_业务明细.csv", "readme.txt"])
        #expect(entries[0].data == Self.text && entries[0].rawName == name)
        // Python's zipfile reads it: a GBK name without the UTF-8 flag comes back as cp437, as it does for Alipay's.
        let listing = try await Self.python(
            """
            import io, sys, zipfile
            z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
            z.testzip()
            info = z.infolist()[0]
            name = info.filename.encode('cp437').decode('gbk') if not info.flag_bits & 0x800 else info.filename
            sys.stdout.write(name + '|' + str(len(z.read(info))))
            """, ours)
        #expect(String(decoding: listing, as: UTF8.self) == "20880000000000010156_20261201_业务明细.csv|\(Self.text.count)")
        let pythons = try await Self.pythonBytes(
            """
            import io, zipfile
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('账务明细.csv', sys.stdin.buffer.read())
            out = buffer.getvalue()
            """, Self.text)
        let read = try ZipArchive.entries(of: pythons)
        #expect(read.map(\.name) == ["账务明细.csv"] && read[0].data == Self.text)
    }

    @Test func damagedZipIsRefused() throws {
        let ours = try ZipArchive.make([.init(rawName: Array("a.csv".utf8), data: Self.text)])
        #expect(throws: ArchiveError.self) { try ZipArchive.entries(of: ours.prefix(ours.count - 30)) }
        var corrupted = ours
        corrupted[60] ^= 0xFF  // inside the deflated data: the CRC-32 check fails
        #expect(throws: ArchiveError.self) { try ZipArchive.entries(of: corrupted) }
        #expect(throws: ArchiveError.self) { try ZipArchive.entries(of: Data("PK\u{3}\u{4} not really".utf8)) }
        #expect(throws: ArchiveError.self) { try ZipArchive.entries(of: ours, limit: 1000) }
    }
}

import CashierArchive
import Foundation
import Testing

/// Bills read a line at a time: ``ByteLines`` over chunks cut anywhere, a gzip stream inflated a
/// chunk at a time (``GzipChunks``) and a zip entry read the same way (``ZipArchive/EntryChunks``),
/// each giving exactly what inflating the whole gives, and refusing what is damaged or cut short.
@Suite struct StreamingArchiveTests {
    /// Every line of `lines`, as text.
    static func all(_ lines: ByteLines) throws -> [String] {
        var lines = lines
        var found: [String] = []
        while let line = try lines.next() { found.append(String(decoding: line, as: UTF8.self)) }
        return found
    }

    /// `bytes` handed out `size` bytes at a time.
    static func chunked(_ bytes: [UInt8], _ size: Int) -> ByteLines {
        var offset = 0
        return ByteLines {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return Array(bytes[offset..<min(offset + size, bytes.count)])
        }
    }

    @Test func linesEndAtEveryLineEndWhereverTheChunksAreCut() throws {
        let text = Array("one\r\ntwo\n\nthree\rfour\r\n\r\n交易,五\nlast without an end".utf8)
        let expected = ["one", "two", "three", "four", "交易,五", "last without an end"]
        #expect(try Self.all(ByteLines(text)) == expected)
        for size in [1, 2, 3, 5, 7, 64] {
            #expect(try Self.all(Self.chunked(text, size)) == expected, "chunks of \(size)")
        }
        #expect(try Self.all(ByteLines([UInt8]())) == [])
        #expect(try Self.all(ByteLines(Array("\r\n\n\r".utf8))) == [])
        struct Broken: Error {}
        var failing = ByteLines { throw Broken() }
        #expect(throws: Broken.self) { try failing.next() }
    }

    @Test func aGzipStreamInflatesAChunkAtATimeToWhatTheWholeGives() throws {
        // Several chunks' worth, hard to compress, and two members one after the other.
        let text = Data((0..<40_000).map { "line \($0),\(($0 * 7919) % 10007),`C\($0)\r\n" }.joined().utf8)
        let gzipped = try Gzip.compress(text)
        let twoMembers = gzipped + (try Gzip.compress(Data("and another member\n".utf8)))
        var inflated: [UInt8] = []
        var chunks = 0
        let stream = try GzipChunks(twoMembers)
        while let chunk = try stream.next() {
            inflated += chunk
            chunks += 1
        }
        #expect(Data(inflated) == text + Data("and another member\n".utf8))
        #expect(chunks > 2, "inflated a chunk at a time, not whole")
        #expect(try stream.next() == nil)
        let lines = try Self.all(ByteLines(chunks: try GzipChunks(gzipped).next))
        #expect(lines.count == 40_000 && lines.last == "line 39999,\((39_999 * 7919) % 10007),`C39999")

        // Cut short, a flipped CRC-32, not gzip at all.
        let cut = try GzipChunks(gzipped.prefix(gzipped.count / 2))
        #expect(throws: ArchiveError.self) { while try cut.next() != nil {} }
        var flipped = gzipped
        flipped[flipped.count - 6] ^= 0xFF
        let damaged = try GzipChunks(flipped)
        #expect(throws: ArchiveError.self) { while try damaged.next() != nil {} }
        #expect(throws: ArchiveError.self) { try GzipChunks(Data("not gzip".utf8)) }
    }

    @Test func aZipEntryIsReadAChunkAtATimeByItsName() throws {
        let gbk = String.Encoding(rawValue: 0x8000_0632)
        let detail = Data((0..<30_000).map { "\($0),交易,\($0 % 97).00\n" }.joined().data(using: gbk)!)
        let archive = try ZipArchive.make([
            .init(rawName: Array("20880000000000000156_20261201_业务明细(汇总).csv".data(using: gbk)!), data: Data("summary".utf8)),
            .init(rawName: Array("20880000000000000156_20261201_业务明细.csv".data(using: gbk)!), data: detail),
        ])
        let entry = try ZipArchive.EntryChunks(in: archive) { $0.hasSuffix("业务明细.csv") }
        #expect(entry.name == "20880000000000000156_20261201_业务明细.csv")
        var read: [UInt8] = []
        while let chunk = try entry.next() { read += chunk }
        #expect(Data(read) == detail)

        let missing = #expect(throws: ArchiveError.self) { try ZipArchive.EntryChunks(in: archive) { $0 == "nothing.csv" } }
        #expect(missing?.message.contains("业务明细(汇总).csv") == true, "the error names what the archive holds")
        #expect(throws: ArchiveError.self) { try ZipArchive.EntryChunks(in: Data("PK\u{3}\u{4} not really".utf8)) { _ in true } }
        var corrupted = archive
        corrupted[corrupted.count / 2] ^= 0xFF  // inside the detail list's deflated data
        #expect(throws: ArchiveError.self) {
            let damaged = try ZipArchive.EntryChunks(in: corrupted) { $0.hasSuffix("业务明细.csv") }
            while try damaged.next() != nil {}
        }
    }
}

import Cashier
import CashierArchive
import CashierCrypto
import Foundation
import TestSupport
import Testing
import UnionPay

/// The reconciliation file: `fileContent` is base64 of zlib of a zip with fixed-width lines and a
/// GBK summary. A file is generated here, read back, and read by Python's standard library
/// (zlib, zipfile: independent of the Swift code) with the demo's widths.
@Suite struct ReconciliationTests {
    static func cny(_ fen: Int64) -> Money { Money(minorUnits: fen, currency: .cny) }

    static let lines = [
        UnionPay.ReconciliationLine(
            transactionCode: "S22", traceNo: "190624", traceTime: "1206112203", maskedAccount: "622609******0048", amount: cny(476_800),
            queryID: "201512061122031906248", orderID: "C20261206112203A1", fee: cny(-2861), transactionType: "01",
            merchantID: "777290058110048", reserved: "order=7"),
        UnionPay.ReconciliationLine(
            transactionCode: "S30", traceNo: "190700", traceTime: "1206120000", maskedAccount: "622609******0048", amount: cny(1000),
            queryID: "201512061200001907001", orderID: "R20261206120000B1", fee: cny(6), transactionType: "04",
            originalQueryID: "201512061122031906248", merchantID: "777290058110048"),
    ]

    @Test func aGeneratedFileReadsBack() throws {
        let zip = try UnionPay.ReconciliationFile.zip(merchantID: "777290058110048", settleDate: "20261206", lines: Self.lines)
        let content = try UnionPay.ReconciliationFile.fileContent(zip: zip)
        let file = try UnionPay.ReconciliationFile(fileContent: content, fileName: "777290058110048_20261206.zip")
        #expect(file.lines == Self.lines)
        #expect(Set(file.files.keys) == ["INN26120688ZM_777290058110048", "RD2010261206" + "01_777290058110048"])
        let consume = try #require(file.lines.first)
        #expect(consume.amount == Self.cny(476_800) && consume.fee == Self.cny(-2861) && consume.settleAmount == Self.cny(473_939))
        #expect(consume.orderID == "C20261206112203A1" && consume.queryID == "201512061122031906248" && consume.transactionType == "01")
        #expect(consume.merchantID == "777290058110048" && consume.reserved == "order=7" && consume.bizType == "000201")
        let refund = file.lines[1]
        #expect(refund.originalQueryID == "201512061122031906248" && refund.settleAmount == Self.cny(-994))
        #expect(file.summary?.contains("中国银联全渠道商户交易汇总表") == true && file.summary?.contains("4768.00") == true)
        // Every line is 607 bytes plus CRLF; the summary is GBK, not UTF-8.
        let detail = try #require(file.files["INN26120688ZM_777290058110048"])
        #expect(detail.count == 2 * (607 + 2) && UnionPay.ReconciliationLine.length == 607)
        #expect(String(data: try #require(file.files.first { $0.key.hasPrefix("RD") }?.value), encoding: .utf8) == nil)
    }

    @Test func pythonReadsItWithTheDemosWidths() async throws {
        let zip = try UnionPay.ReconciliationFile.zip(merchantID: "777290058110048", settleDate: "20261206", lines: Self.lines)
        let content = try UnionPay.ReconciliationFile.fileContent(zip: zip)
        let script = """
            import base64, io, sys, zipfile, zlib
            z = zipfile.ZipFile(io.BytesIO(zlib.decompress(base64.b64decode(sys.stdin.read()))))
            widths = [3, 11, 11, 6, 10, 19, 12, 4, 2, 21, 2, 32, 2, 6, 10, 13, 13, 4, 15, 2, 2, 6, 2, 4, 32, 1, 21, 15, 1, 15, 32, 13, 13, 8, 32, 13, 13, 12, 2, 1, 131]
            for name in z.namelist():
                data = z.read(name)
                if name.startswith("RD"):
                    print("summary", "中国银联全渠道商户交易汇总表" in data.decode("gbk"))
                    continue
                for line in data.decode("ascii").split("\\r\\n"):
                    if not line: continue
                    out, at = [], 0
                    for w in widths:
                        out.append(line[at:at + w].strip()); at += w + 1
                    print(len(line), out[6], out[9], out[11], out[15], out[16], out[19], out[26], out[27])
            """
        let result = try await runSubprocess("/usr/bin/env", ["python3", "-c", script], stdin: Data(content.utf8))
        try #require(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").sorted() == [
                "607 000000001000 201512061200001907001 R20261206120000B1 C000000000006 D000000000994 04 201512061122031906248 777290058110048",
                "607 000000476800 201512061122031906248 C20261206112203A1 D000000002861 C000000473939 01  777290058110048",
                "summary True",
            ])
    }

    @Test func damagedFilesAreRefused() throws {
        let zip = try UnionPay.ReconciliationFile.zip(merchantID: "777290058110048", settleDate: "20261206", lines: Self.lines)
        let content = try UnionPay.ReconciliationFile.fileContent(zip: zip)
        #expect(throws: PaymentError.self) { try UnionPay.ReconciliationFile(fileContent: "not base64!", fileName: "") }
        // A zip, not zlib around it.
        #expect(throws: PaymentError.self) { try UnionPay.ReconciliationFile(fileContent: Base64.encode(zip), fileName: "") }
        let compressed = try Base64.decode(content)
        #expect(throws: PaymentError.self) {
            try UnionPay.ReconciliationFile(fileContent: Base64.encode(compressed.prefix(compressed.count / 2)), fileName: "")
        }
        #expect(throws: PaymentError.self) {
            try UnionPay.ReconciliationFile(fileContent: Base64.encode(try Zlib.compress(Data("PK junk".utf8))), fileName: "")
        }
        // A line whose amount is not digits, and a short line.
        var bad = Self.lines[0].bytes
        bad[70] = UInt8(ascii: "x")  // inside txnAmt (bytes 66..<78)
        #expect(throws: PaymentError.self) { try UnionPay.ReconciliationLine(line: bad) }
        #expect(throws: PaymentError.self) { try UnionPay.ReconciliationLine(line: Array(Self.lines[0].bytes.prefix(300))) }
        // Trailing spaces trimmed by a tool: still read.
        var trimmed = Self.lines[0].bytes
        while trimmed.last == UInt8(ascii: " ") { trimmed.removeLast() }
        #expect(try UnionPay.ReconciliationLine(line: trimmed) == Self.lines[0])
        let badZip = try ZipArchive.make([.init(rawName: Array("INN26120688ZM_777290058110048".utf8), data: Data(bad + [13, 10]))])
        #expect(throws: PaymentError.self) { try UnionPay.ReconciliationFile(zip: badZip, fileName: "") }
    }

    @Test func zlibIsRFC1950() async throws {
        let data = Data(String(repeating: "对账 reconciliation ", count: 500).utf8)
        let ours = try Zlib.compress(data)
        #expect(Zlib.isZlib(ours) && !Gzip.isGzip(ours) && ours.count < data.count)
        #expect(try Zlib.decompress(ours) == data)
        let python = try await runSubprocess(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys,zlib,base64; print(base64.b64encode(zlib.compress(base64.b64decode(sys.stdin.read()))).decode())",
            ],
            stdin: Data(Base64.encode(data).utf8))
        #expect(try Zlib.decompress(try Base64.decode(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines))) == data)
        #expect(throws: ArchiveError.self) { try Zlib.decompress(ours + Data([0])) }
        #expect(throws: ArchiveError.self) { try Zlib.decompress(ours.prefix(ours.count - 2)) }
        #expect(throws: ArchiveError.self) { try Zlib.decompress(Data([0x78, 0x9C, 0xFF, 0xFF])) }
        #expect(throws: ArchiveError.self) { try Zlib.decompress(ours, limit: 100) }
    }
}

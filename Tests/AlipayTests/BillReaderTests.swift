import Alipay
import Cashier
import Foundation
import Testing

/// `Alipay.Bill.Reader`: the rows one at a time, the summary checked when the list ends.
@Suite struct BillReaderTests {
    static func bill(rows count: Int) -> Alipay.Bill {
        var rows: [Alipay.Bill.Row] = []
        for index in 0..<count {
            let refund = index % 3 == 2
            let amount: Int64 = refund ? -100 : 5100 + Int64(index)
            rows.append(
                .init(
                    tradeNo: "20261129220\(index)", outTradeNo: "A\(index)", kind: refund ? .refund : .trade, subject: "Order",
                    created: "2026-11-29 10:00:00", finished: "2026-11-29 10:00:05", amount: Money(minorUnits: amount, currency: .cny),
                    refundRequestNo: refund ? "R\(index)" : "", fee: Money(minorUnits: refund ? 0 : 31, currency: .cny)))
        }
        return Alipay.Bill(account: "20880000000000010156", rows: rows)
    }

    @Test func readsTheRowsTheWholeBillHasOneAtATime() throws {
        let bill = Self.bill(rows: 7)
        let data = bill.gbkData(from: "a", to: "b", exportedAt: "c")
        var reader = try Alipay.Bill.Reader(data: data)
        #expect(reader.account == "20880000000000010156")
        var rows: [Alipay.Bill.Row] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows == bill.rows)
        #expect(try reader.next() == nil)
        #expect(try Alipay.Bill.parse(data) == bill)
    }

    @Test func aTruncatedBillGivesItsRowsThenThrowsAtTheEnd() throws {
        let text = Self.bill(rows: 4).text(from: "a", to: "b", exportedAt: "c")
        // Four comment lines, the header row, the four rows; the end marker and the summary lost.
        let cut = text.components(separatedBy: "\r\n").prefix(9).joined(separator: "\r\n")
        var reader = try Alipay.Bill.Reader(text: cut)
        var read = 0
        let error = #expect(throws: PaymentError.self) {
            while try reader.next() != nil { read += 1 }
        }
        #expect(read == 4)
        #expect(error?.message.contains("truncated") == true)
    }

    @Test func aZippedBillIsReadAsItsTextIsInGBKOrUTF8() throws {
        let bill = Self.bill(rows: 3_000)
        let zip = try bill.zipData(stem: "20880000000000010156_20261129", from: "a", to: "b", exportedAt: "c")
        for data in [zip, bill.gbkData(from: "a", to: "b", exportedAt: "c"), Data(bill.text(from: "a", to: "b", exportedAt: "c").utf8)] {
            var reader = try Alipay.Bill.Reader(data: data)
            var rows: [Alipay.Bill.Row] = []
            while let row = try reader.next() { rows.append(row) }
            #expect(rows == bill.rows)
            #expect(reader.account == "20880000000000010156")
        }
    }
}

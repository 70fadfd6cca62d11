import Cashier
import CashierArchive
import Foundation
import Testing

@testable import WeChatPay

/// `WeChatPay.Bill.Reader`: the rows one at a time (from the text, or from the gzipped file
/// inflated as it is read), a bad line refused by its number, a damaged file refused.
@Suite struct BillReaderTests {
    static let bill = WeChatPay.Bill(
        rows: (0..<5).map { index in
            let refund = index == 3
            return .init(
                tradeTime: "2026-11-29 10:00:0\(index)", appID: "wxd930ea5d5a258f4f", mchID: "10000100",
                transactionID: "42000000002026112900\(index)", outTradeNo: "W\(index)", tradeState: refund ? "REFUND" : "SUCCESS",
                amount: Money(minorUnits: 1000 + Int64(index), currency: .cny),
                refundAmount: Money(minorUnits: refund ? 500 : 0, currency: .cny), outRefundNo: refund ? "R3" : "0", subject: "Order",
                fee: Money(minorUnits: refund ? -3 : 6, currency: .cny))
        })

    @Test func readsTheRowsTheWholeBillHasOneAtATime() throws {
        var reader = try WeChatPay.Bill.Reader(text: Self.bill.text)
        var rows: [WeChatPay.Bill.Row] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows == Self.bill.rows)
        #expect(try reader.next() == nil, "the summary ends the rows")
        #expect(try WeChatPay.Bill(parsing: Self.bill.text).rows == Self.bill.rows)
    }

    @Test func aBadLineIsRefusedByItsNumberAfterTheRowsBeforeIt() throws {
        var lines = Self.bill.text.components(separatedBy: "\r\n")
        lines[3] = "`2026-11-29,`short"  // the third row
        var reader = try WeChatPay.Bill.Reader(text: lines.joined(separator: "\r\n"))
        #expect(try reader.next()?.outTradeNo == "W0")
        #expect(try reader.next()?.outTradeNo == "W1")
        let error = #expect(throws: PaymentError.self) { try reader.next() }
        #expect(error?.message.contains("bill line 4") == true)
    }

    @Test func aGzippedBillIsReadAsItsTextIs() throws {
        let gzipped = try Gzip.compress(Data(Self.bill.text.utf8))
        for file in [gzipped, Data(Self.bill.text.utf8)] {
            var reader = try WeChatPay.Bill.Reader(file: file)
            var rows: [WeChatPay.Bill.Row] = []
            while let row = try reader.next() { rows.append(row) }
            #expect(rows == Self.bill.rows)
        }
        // Cut short: the rows before the cut, then a clear refusal (not a summary-less success).
        let error = #expect(throws: PaymentError.self) {
            var reader = try WeChatPay.Bill.Reader(file: gzipped.prefix(gzipped.count - 12))
            while try reader.next() != nil {}
        }
        #expect(error?.code == .malformedMessage)
    }
}

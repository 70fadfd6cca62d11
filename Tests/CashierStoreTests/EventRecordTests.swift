import Cashier
import Foundation
import Testing

@testable import CashierStore

@Suite struct EventRecordTests {
    private func fields(_ record: EventRecord) throws -> [String: String] {
        try #require(try JSONSerialization.jsonObject(with: Data(record.detail.utf8)) as? [String: String])
    }

    @Test func addingKeepsTheDetailAndTheNewFieldsWin() throws {
        let record = EventRecord(
            kind: .notification, detail: JSONText.object(["provider": "wechat", "note": "a \"quoted\" \\ 价格"]),
            bodySHA256: "abc")
        let added = record.adding(["payment": "pay_1", "provider": "alipay"])
        #expect(try fields(added) == ["provider": "alipay", "note": "a \"quoted\" \\ 价格", "payment": "pay_1"])
        #expect(added.kind == .notification && added.bodySHA256 == "abc")
        #expect(try fields(EventRecord(kind: .notification).adding(["payment": "pay_2"])) == ["payment": "pay_2"])
    }

    @Test func addingKeepsNumbersAndBooleansAsTextAndDropsWhatIsNotFlat() throws {
        let record = EventRecord(
            kind: .notification, detail: #"{"amount": 1275, "late": true, "nested": {"a": "b"}, "list": [1], "none": null}"#)
        #expect(try fields(record.adding(["payment": "pay_3"])) == ["amount": "1275", "late": "true", "payment": "pay_3"])
        // A detail that is not a JSON object contributes nothing, and nothing is thrown.
        #expect(try fields(EventRecord(kind: .notification, detail: "not json").adding(["a": "b"])) == ["a": "b"])
    }
}

import Testing

@testable import Cashier

@Suite struct FieldSpanTests {
    @Test func fieldsArePackedInOrderIntoOneBuffer() {
        let (storage, spans) = FieldSpan.pack([(name: "b", value: "中文"), (name: "a", value: ""), (name: "c_1", value: "x=y&z")])
        #expect(storage == Array("b中文ac_1x=y&z".utf8))
        #expect(spans.map { String(decoding: storage[$0.name], as: UTF8.self) } == ["b", "a", "c_1"])
        #expect(spans.map { String(decoding: storage[$0.value], as: UTF8.self) } == ["中文", "", "x=y&z"])
        #expect(spans[1].value.isEmpty && spans[1].value.lowerBound == spans[2].name.lowerBound)
    }

    @Test func utf8ValidityIsCheckedWithoutRepair() {
        for (bytes, valid) in [([UInt8]("abc".utf8), true), (Array("中文".utf8), true), ([0xE4, 0xB8], false), ([0xFF], false), ([], true)] {
            #expect(bytes.withUnsafeBufferPointer { UTF8Text.isValid($0) } == valid, "\(bytes)")
        }
    }
}

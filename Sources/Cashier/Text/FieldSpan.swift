/// Where one named field's name and value sit in a byte buffer.
///
/// Provider messages (WeChat Pay's XML, Alipay's forms) are kept as bytes: every name and value
/// in one buffer, each field a `FieldSpan` into it. A parser's spans point into the message as
/// received; strings are made only for the fields a caller reads.
public struct FieldSpan: Sendable, Hashable {
    public var name: Range<Int>
    public var value: Range<Int>

    public init(name: Range<Int>, value: Range<Int>) {
        self.name = name
        self.value = value
    }

    /// Fields packed into one buffer, in the order given.
    public static func pack(_ fields: some Sequence<(name: String, value: String)>) -> (storage: [UInt8], spans: [FieldSpan]) {
        var storage: [UInt8] = []
        var spans: [FieldSpan] = []
        for field in fields {
            let nameStart = storage.count
            storage += field.name.utf8
            let valueStart = storage.count
            storage += field.value.utf8
            spans.append(FieldSpan(name: nameStart..<valueStart, value: valueStart..<storage.count))
        }
        return (storage, spans)
    }
}

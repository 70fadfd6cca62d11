import Alipay

/// Alipay's form parsers (notifications, return URLs): refuse or parse; what parses encodes and
/// parses back to the same fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: count)
    _ = try? Alipay.FormBody.fields(bytes)
    guard let fields = try? Alipay.FormBody.parse(bytes) else { return 0 }
    let encoded = Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    precondition((try? Alipay.FormBody.parse(Array(encoded.utf8))) == fields, "encode then parse changed the fields")
    return 0
}

import WeChatPay

/// WeChat Pay v2's XML codec: any bytes either parse into fields that print back and parse to the
/// same fields, or are refused with an error — never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let document = try? WeChatPay.V2.XMLDocument(parsing: bytes) else { return 0 }
    let again = try! WeChatPay.V2.XMLDocument(parsing: Array(document.xmlString.utf8))
    precondition(again.pairs.map(\.key) == document.pairs.map(\.key), "the round trip changed the names")
    precondition(again.pairs.map(\.value) == document.pairs.map(\.value), "the round trip changed the values")
    return 0
}

import Alipay

/// The scanner that finds an Alipay response node's raw text (to verify it byte for byte).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAlipayResponse(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    _ = try? Alipay.ResponseNode(text: text, name: "alipay_trade_query_response")
    _ = try? Alipay.ResponseNode(text: text, name: "error_response")
    return 0
}

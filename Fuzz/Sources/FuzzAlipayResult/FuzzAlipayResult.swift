import Alipay
import CashierCrypto

/// The app-pay sync result parsers (JSON and the legacy `key="value"&…` string): refuse or read, never crash.
private let key = try! RSAPrivateKey(generatingKeySizeInBits: 1024).publicKey

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAlipayResult(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    _ = try? Alipay.SyncResult.verify(text, publicKey: key)
    _ = try? Alipay.SyncResult.verifyLegacy(text, publicKey: key)
    return 0
}

import ApplePay
import Foundation

/// The Apple Pay token parser (a PKPayment or bare paymentData), and the payload reader.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzApplePayToken(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: count))
    if let token = try? ApplePay.PaymentToken(json: bytes) { _ = try? token.signedContent() }
    _ = ApplePay.DecryptedPayment(json: bytes)
    return 0
}

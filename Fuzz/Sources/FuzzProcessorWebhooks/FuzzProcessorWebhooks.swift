import ApplePay
import Cashier
import Foundation

/// The processors' webhooks (Apple Pay through Stripe or Adyen). The first byte chooses:
/// - even: the rest is a Stripe event's body, signed here as Stripe would. It either verifies and
///   reads as an event with an id and a type, or is refused with a `PaymentError`; the same body
///   with any byte changed after signing never verifies.
/// - odd: the rest is an Adyen webhook body. It is refused with a `PaymentError` unless every item
///   carries a signature that verifies (which arbitrary bytes never do), and never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProcessorWebhooks(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let body = Data(UnsafeBufferPointer(start: data + 1, count: count - 1))
    if data[0] % 2 == 0 {
        stripe(body)
    } else {
        do {
            _ = try ApplePay.AdyenNotification.items(in: body, hmacKey: "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056")
        } catch {
            precondition(error is PaymentError, "Adyen: refused with \(type(of: error)), not a PaymentError")
        }
    }
    return 0
}

private let secret = "whsec_fuzz_0123456789abcdef"

private func stripe(_ body: Data) {
    let now = Date()
    guard let header = try? ApplePay.StripeEvent.signatureHeader(for: body, secret: secret, timestamp: now) else {
        preconditionFailure("a body could not be signed")
    }
    do {
        let event = try ApplePay.StripeEvent.verified(body, signatureHeader: header, secret: secret, now: now)
        precondition(!event.id.isEmpty && !event.type.isEmpty && !event.object.id.isEmpty, "an event without id, type or object id")
    } catch {
        precondition(error is PaymentError, "Stripe: refused with \(type(of: error)), not a PaymentError")
    }
    guard !body.isEmpty else { return }
    var tampered = body
    let index = tampered.startIndex + Int(body.count / 2)
    tampered[index] ^= 0x01
    precondition(
        (try? ApplePay.StripeEvent.verified(tampered, signatureHeader: header, secret: secret, now: now)) == nil,
        "a changed body verified under the original signature")
}

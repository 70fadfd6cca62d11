public import Cashier
public import Foundation

extension ApplePay {
    /// What the device shows after authorisation (`ApplePaySession.STATUS_*`,
    /// `PKPaymentAuthorizationStatus`; the numbers are the same on both).
    public enum AuthorizationStatus: Int, Sendable, Codable {
        case success = 0
        case failure = 1
        case invalidBillingPostalAddress = 2
        case invalidShippingPostalAddress = 3
        case invalidShippingContact = 4
        case pinRequired = 5
        case pinIncorrect = 6
        case pinLockout = 7
    }

    /// Why a processor declined.
    public enum DeclineReason: String, Sendable, Codable {
        case cardDeclined = "card_declined"
        case insufficientFunds = "insufficient_funds"
        case expiredCard = "expired_card"
        case invalidBillingAddress = "invalid_billing_address"
        case invalidShippingAddress = "invalid_shipping_address"
        case invalidShippingContact = "invalid_shipping_contact"
        case pinRequired = "pin_required"

        /// The status the device should show for it.
        public var status: AuthorizationStatus {
            switch self {
            case .cardDeclined, .insufficientFunds, .expiredCard: .failure
            case .invalidBillingAddress: .invalidBillingPostalAddress
            case .invalidShippingAddress: .invalidShippingPostalAddress
            case .invalidShippingContact: .invalidShippingContact
            case .pinRequired: .pinRequired
            }
        }
    }

    /// A processor's answer.
    public enum ProcessorDecision: Sendable, Equatable {
        /// The money is authorised; `reference` is the processor's id for it.
        case authorized(reference: String)
        case declined(DeclineReason, message: String)

        public var status: AuthorizationStatus {
            switch self {
            case .authorized: .success
            case .declined(let reason, _): reason.status
            }
        }

        /// The body Apple Pay JS's `completePayment` takes (`ApplePayPaymentAuthorizationResult`).
        public func authorizationResultJSON() -> [String: Any] {
            guard case .declined(let reason, let message) = self else { return ["status": status.rawValue] }
            let field: (String, String)? =
                switch reason {
                case .invalidBillingAddress: ("billingContactInvalid", "postalAddress")
                case .invalidShippingAddress: ("shippingContactInvalid", "postalAddress")
                case .invalidShippingContact: ("shippingContactInvalid", "phoneNumber")
                default: nil
                }
            var result: [String: Any] = ["status": status.rawValue]
            if let field { result["errors"] = [["code": field.0, "contactField": field.1, "message": message]] }
            return result
        }
    }

    /// Where a decrypted payment is authorised: a card processor (Adyen, Stripe, a bank's
    /// gateway) behind one method. Implementations send the network token and cryptogram, never log them.
    public protocol PaymentProcessor: Sendable {
        /// Authorises `amount` on `payment` for the merchant's order `reference`.
        /// - Throws: `PaymentError.transport` when the processor cannot be reached (the outcome is
        ///   unknown: retry with the same reference, never with a new one).
        func authorize(_ payment: DecryptedPayment, amount: Money, reference: String) async throws -> ProcessorDecision
    }

    /// A processor for tests and the sandbox, decided by magic values:
    ///
    /// | card number (DPAN)  | outcome |
    /// |---|---|
    /// | `4000000000000002` | declined, `card_declined` |
    /// | `4000000000009995` | declined, `insufficient_funds` |
    /// | `4000000000000069` | declined, `expired_card` (also any expiry date in the past) |
    ///
    /// | amount's last two minor-unit digits | outcome |
    /// |---|---|
    /// | `51` | declined, `insufficient_funds` |
    /// | `52` | declined, `invalid_billing_address` |
    /// | `53` | declined, `invalid_shipping_address` |
    /// | `54` | declined, `invalid_shipping_contact` |
    /// | `55` | declined, `pin_required` |
    /// | `99` | throws `PaymentError.transport` (processor unreachable) |
    ///
    /// Anything else is authorised with a `sbx_…` reference. The amount checked is the token's,
    /// which must equal `amount`.
    public struct SandboxProcessor: PaymentProcessor {
        private let clock: @Sendable () -> Date

        public init(clock: @escaping @Sendable () -> Date = { Date() }) {
            self.clock = clock
        }

        public func authorize(_ payment: DecryptedPayment, amount: Money, reference: String) async throws -> ProcessorDecision {
            try payment.check(total: amount)
            switch payment.applicationPrimaryAccountNumber {
            case "4000000000000002": return .declined(.cardDeclined, message: "The card was declined.")
            case "4000000000009995": return .declined(.insufficientFunds, message: "Insufficient funds.")
            case "4000000000000069": return .declined(.expiredCard, message: "The card has expired.")
            default: break
            }
            if isExpired(payment.applicationExpirationDate) { return .declined(.expiredCard, message: "The card has expired.") }
            switch abs(amount.minorUnits % 100) {
            case 51: return .declined(.insufficientFunds, message: "Insufficient funds.")
            case 52: return .declined(.invalidBillingAddress, message: "The billing postal code does not match the card.")
            case 53: return .declined(.invalidShippingAddress, message: "We cannot deliver to this address.")
            case 54: return .declined(.invalidShippingContact, message: "The phone number is not valid.")
            case 55: return .declined(.pinRequired, message: "Enter the card's PIN.")
            case 99: throw PaymentError(.transport, provider: .applePay, "the sandbox processor is unreachable (amount ending in 99)")
            default: return .authorized(reference: "sbx_" + reference.filter { $0.isLetter || $0.isNumber }.prefix(24))
            }
        }

        /// `YYMMDD` before today (the card is good through the day).
        private func isExpired(_ expiry: String) -> Bool {
            guard expiry.count == 6, let value = Int(expiry) else { return true }
            let today = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: clock())
            let current = ((today.year ?? 2000) % 100) * 10_000 + (today.month ?? 1) * 100 + (today.day ?? 1)
            return value < current
        }
    }
}

public import ApplePay
public import Cashier
import CashierCrypto
public import Foundation
import Synchronization

extension ApplePay {
    /// A card processor for tests and the sandboxes: it keeps authorisations, captures, voids and
    /// refunds in memory, answers a repeated idempotency key with its first answer, and decides
    /// authorisations by magic values:
    ///
    /// | card number (DPAN)  | outcome |
    /// |---|---|
    /// | `4000000000000002` | declined, `card_declined` |
    /// | `4000000000009995` | declined, `insufficient_funds` |
    /// | `4000000000000069` | declined, `expired_card` (also any expiry date in the past) |
    /// | `4000002760003184` | declined, `authentication_required` (the payer must be present) |
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
    /// Anything else is authorised. The amount checked is the token's, which must equal the
    /// authorisation's. The Stripe and Adyen simulators of `cashier-sandbox gateways` are this processor
    /// behind their wire formats.
    public final class SandboxProcessor: PaymentProcessor {
        /// One authorisation as the processor keeps it.
        public struct Entry: Sendable, Equatable {
            /// `captureFailed`: captured, then failed at the card scheme (`captured` keeps what was tried).
            public enum Status: String, Sendable {
                case authorized, captured, voided
                case captureFailed = "capture_failed"
            }
            public let reference: String
            public let merchantReference: String
            public let amount: Money
            public var captured: Money
            public var refunded: Money
            /// Taken back from the merchant by chargebacks (and not reversed).
            public var chargedBack: Money
            public var status: Status
            public let createdAt: Date

            /// What is captured and neither refunded nor charged back.
            public var left: Money {
                Money(
                    minorUnits: captured.minorUnits - refunded.minorUnits - chargedBack.minorUnits, currency: amount.currency)
            }
        }

        /// Prefixes of the processor's ids: `sbx_`/`sbxop_` by default, Stripe's `pi_`/`re_` in its simulator.
        public struct Naming: Sendable {
            public var payment: String
            public var operation: String
            public init(payment: String, operation: String) {
                self.payment = payment
                self.operation = operation
            }
        }

        private struct State {
            var entries: [String: Entry] = [:]
            var order: [String] = []
            /// Idempotency key → the first answer (an authorisation's or an operation's).
            var decisions: [String: ProcessorDecision] = [:]
            var operations: [String: ProcessorOperation] = [:]
        }

        private let clock: @Sendable () -> Date
        private let naming: Naming
        private let state = Mutex(State())

        public init(naming: Naming = Naming(payment: "sbx_", operation: "sbxop_"), clock: @escaping @Sendable () -> Date = { Date() }) {
            self.naming = naming
            self.clock = clock
        }

        public var tokenForm: TokenForm { .decrypted }

        /// Every authorisation, oldest first.
        public var entries: [Entry] { state.withLock { state in state.order.compactMap { state.entries[$0] } } }

        public func entry(_ reference: String) -> Entry? { state.withLock { $0.entries[reference] } }

        public func authorize(_ authorization: ProcessorAuthorization) async throws -> ProcessorDecision {
            try await authorize(authorization, as: nil)
        }

        /// ``authorize(_:)`` under a reference the caller chose (a Stripe PaymentIntent created before it was confirmed).
        public func authorize(_ authorization: ProcessorAuthorization, as chosen: String?) async throws -> ProcessorDecision {
            guard let payment = authorization.decrypted else {
                throw PaymentError(.invalidRequest, provider: .applePay, "the sandbox processor needs the decrypted payment")
            }
            if let earlier = state.withLock({ $0.decisions[authorization.idempotencyKey] }) { return earlier }
            let decision = try Self.decide(payment, amount: authorization.amount, now: clock())
            return state.withLock { state in
                if let earlier = state.decisions[authorization.idempotencyKey] { return earlier }
                var answer = decision
                if case .authorized = decision {
                    let reference = chosen ?? naming.payment + SecureRandom.alphanumeric(count: 24)
                    state.entries[reference] = Entry(
                        reference: reference, merchantReference: authorization.reference, amount: authorization.amount,
                        captured: authorization.capture ? authorization.amount : .zero(authorization.amount.currency),
                        refunded: .zero(authorization.amount.currency), chargedBack: .zero(authorization.amount.currency),
                        status: authorization.capture ? .captured : .authorized,
                        createdAt: clock())
                    state.order.append(reference)
                    answer = .authorized(reference: reference)
                }
                state.decisions[authorization.idempotencyKey] = answer
                return answer
            }
        }

        public func capture(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation {
            operation(idempotencyKey, reference) { entry in
                guard entry.status == .authorized else { return "the payment is \(entry.status.rawValue), not awaiting capture" }
                guard amount.currency == entry.amount.currency, amount.isPositive, amount.minorUnits <= entry.amount.minorUnits else {
                    return "capture \(amount) is more than the \(entry.amount) authorised"
                }
                entry.captured = amount
                entry.status = .captured
                return nil
            }
        }

        /// The payer's bank takes `amount` back from the merchant (a chargeback), or, when `amount` is
        /// negative, gives it back (the chargeback reversed).
        /// - Returns: whether the payment had that much captured and not refunded (or charged back).
        @discardableResult
        public func chargeBack(_ reference: String, amount: Money) -> Bool {
            state.withLock { state in
                guard var entry = state.entries[reference], entry.status == .captured, amount.currency == entry.amount.currency,
                    amount.minorUnits <= entry.left.minorUnits, -amount.minorUnits <= entry.chargedBack.minorUnits
                else { return false }
                entry.chargedBack = Money(minorUnits: entry.chargedBack.minorUnits + amount.minorUnits, currency: amount.currency)
                state.entries[reference] = entry
                return true
            }
        }

        /// The card scheme rejects a capture after the processor accepted it: no money moved.
        /// - Returns: what the capture had tried to take, or `nil` when the payment is not captured.
        @discardableResult
        public func failCapture(_ reference: String) -> Money? {
            state.withLock { state in
                guard var entry = state.entries[reference], entry.status == .captured, entry.refunded.minorUnits == 0 else { return nil }
                entry.status = .captureFailed
                state.entries[reference] = entry
                return entry.captured
            }
        }

        /// The processor captures a failed capture again by itself (Adyen's "Transaction Recaptured").
        /// - Returns: what it took, or `nil` when the payment's capture had not failed.
        @discardableResult
        public func recapture(_ reference: String) -> Money? {
            state.withLock { state in
                guard var entry = state.entries[reference], entry.status == .captureFailed else { return nil }
                entry.status = .captured
                state.entries[reference] = entry
                return entry.captured
            }
        }

        public func void(_ reference: String, idempotencyKey: String) async throws -> ProcessorOperation {
            operation(idempotencyKey, reference) { entry in
                guard entry.status == .authorized else {
                    return "the payment is \(entry.status.rawValue); only an uncaptured one can be voided"
                }
                entry.status = .voided
                return nil
            }
        }

        public func refund(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation {
            operation(idempotencyKey, reference) { entry in
                guard entry.status == .captured else {
                    return "the payment is \(entry.status.rawValue); only a captured one can be refunded"
                }
                guard amount.currency == entry.amount.currency, amount.isPositive, amount.minorUnits <= entry.left.minorUnits else {
                    return "refund \(amount) is more than the \(entry.left.minorUnits) minor units left"
                }
                entry.refunded = Money(minorUnits: entry.refunded.minorUnits + amount.minorUnits, currency: amount.currency)
                return nil
            }
        }

        public func payments(from: Date, to: Date) async throws -> [ProcessorPayment]? {
            entries.filter { $0.createdAt >= from && $0.createdAt < to }.map(Self.payment)
        }

        public func payment(_ reference: String) async throws -> ProcessorPayment? {
            entry(reference).map(Self.payment)
        }

        private static func payment(_ entry: Entry) -> ProcessorPayment {
            ProcessorPayment(
                reference: entry.reference, merchantReference: entry.merchantReference, authorized: entry.amount,
                captured: entry.status == .captureFailed ? .zero(entry.amount.currency) : entry.captured,
                refunded: Money(minorUnits: entry.refunded.minorUnits + entry.chargedBack.minorUnits, currency: entry.amount.currency),
                // A capture that failed took nothing: all of it went back, as from a void.
                state: entry.status == .authorized ? .authorized : entry.status == .captured ? .captured : .voided,
                status: entry.status.rawValue, createdAt: entry.createdAt)
        }

        /// Applies `change` to the entry once per idempotency key. `change` returns why it refuses, or `nil`.
        private func operation(_ key: String, _ reference: String, _ change: (inout Entry) -> String?) -> ProcessorOperation {
            state.withLock { state in
                if let earlier = state.operations[key] { return earlier }
                let answer: ProcessorOperation
                if var entry = state.entries[reference] {
                    if let refusal = change(&entry) {
                        answer = .refused(refusal)
                    } else {
                        state.entries[reference] = entry
                        answer = .succeeded(reference: naming.operation + SecureRandom.alphanumeric(count: 24))
                    }
                } else {
                    answer = .refused("no payment \(reference)")
                }
                state.operations[key] = answer
                return answer
            }
        }

        /// The card the sandbox declines with `authentication_required` (Stripe's test card that
        /// always asks for authentication).
        public static let authenticationRequiredCard = "4000002760003184"

        /// The magic values' decision for `payment` charged `amount` (the table above).
        /// - Throws: `PaymentError.amountMismatch`/`.currencyMismatch` when the token is for
        ///   another amount; `.transport` for an amount ending in 99.
        public static func decide(_ payment: DecryptedPayment, amount: Money, now: Date) throws -> ProcessorDecision {
            try payment.check(total: amount)
            switch payment.applicationPrimaryAccountNumber {
            case "4000000000000002": return .declined(.cardDeclined, message: "The card was declined.")
            case "4000000000009995": return .declined(.insufficientFunds, message: "Insufficient funds.")
            case "4000000000000069": return .declined(.expiredCard, message: "The card has expired.")
            case authenticationRequiredCard:
                return .declined(.authenticationRequired, message: "This payment requires the cardholder's authentication.")
            default: break
            }
            if isExpired(payment.applicationExpirationDate, now: now) { return .declined(.expiredCard, message: "The card has expired.") }
            switch abs(amount.minorUnits % 100) {
            case 51: return .declined(.insufficientFunds, message: "Insufficient funds.")
            case 52: return .declined(.invalidBillingAddress, message: "The billing postal code does not match the card.")
            case 53: return .declined(.invalidShippingAddress, message: "We cannot deliver to this address.")
            case 54: return .declined(.invalidShippingContact, message: "The phone number is not valid.")
            case 55: return .declined(.pinRequired, message: "Enter the card's PIN.")
            case 99: throw PaymentError(.transport, provider: .applePay, "the sandbox processor is unreachable (amount ending in 99)")
            default: return .authorized(reference: "")
            }
        }

        /// `YYMMDD` before today (the card is good through the day).
        private static func isExpired(_ expiry: String, now: Date) -> Bool {
            guard expiry.count == 6, let value = Int(expiry) else { return true }
            let today = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: now)
            let current = ((today.year ?? 2000) % 100) * 10_000 + (today.month ?? 1) * 100 + (today.day ?? 1)
            return value < current
        }
    }
}

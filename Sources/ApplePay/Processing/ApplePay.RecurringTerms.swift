public import Cashier
public import Foundation

extension ApplePay {
    /// What a first, customer-initiated payment stores the payer's method for: whom the merchant
    /// knows the payer as, and the kind of later charges (the card schemes' stored-credential
    /// framework, which processors pass on to the issuer).
    ///
    /// ```swift
    /// let terms = ApplePay.RecurringTerms(shopperReference: "agr_42", model: .subscription)
    /// ```
    public struct RecurringTerms: Sendable, Equatable {
        /// The kind of charges the stored method is for (Adyen's `recurringProcessingModel`).
        public enum Model: String, Sendable, CaseIterable {
            /// Charged on a fixed schedule (a subscription, a membership).
            case subscription = "Subscription"
            /// Kept for the payer's own later purchases, or charges without a fixed schedule.
            case cardOnFile = "CardOnFile"
            /// Charged without a fixed schedule or amount (an automatic top-up).
            case unscheduledCardOnFile = "UnscheduledCardOnFile"
        }

        /// Stripe's `payment_method_options[card][mandate_options]`: the mandate some issuers
        /// (India's) require for later charges; other cards ignore it.
        public struct Mandate: Sendable, Equatable {
            /// The most (``amountIsMaximum``) or exactly what each charge takes.
            public var amount: Money
            /// `maximum` (`true`) or `fixed` amounts.
            public var amountIsMaximum: Bool
            /// `day`, `week`, `month`, `year` or `sporadic`.
            public var interval: String
            /// How many ``interval``s between charges (not for `sporadic`).
            public var intervalCount: Int?
            /// The merchant's reference for the mandate (at most 80 characters).
            public var reference: String
            /// When charges may begin.
            public var startDate: Date

            /// A mandate's details.
            /// - Parameters:
            ///   - amount: the most, or exactly what, each charge takes.
            ///   - amountIsMaximum: `true` for Stripe's `maximum`, `false` for `fixed`.
            ///   - interval: `day`, `week`, `month`, `year` or `sporadic`.
            ///   - intervalCount: how many intervals between charges.
            ///   - reference: the merchant's reference for the mandate.
            ///   - startDate: when charges may begin.
            public init(amount: Money, amountIsMaximum: Bool, interval: String, intervalCount: Int?, reference: String, startDate: Date) {
                self.amount = amount
                self.amountIsMaximum = amountIsMaximum
                self.interval = interval
                self.intervalCount = intervalCount
                self.reference = reference
                self.startDate = startDate
            }
        }

        /// The merchant's own number for the payer or the agreement (Adyen's `shopperReference`,
        /// kept on Stripe's Customer as `metadata[cashier_shopper]`): at least three characters,
        /// never personal data.
        public var shopperReference: String
        /// The kind of later charges.
        public var model: Model
        /// Stripe's mandate details, sent when set.
        public var mandate: Mandate?

        /// Terms for storing a method.
        /// - Parameters:
        ///   - shopperReference: the merchant's number for the payer or agreement.
        ///   - model: the kind of later charges.
        ///   - mandate: Stripe's mandate details, if any.
        public init(shopperReference: String, model: Model = .subscription, mandate: Mandate? = nil) {
            self.shopperReference = shopperReference
            self.model = model
            self.mandate = mandate
        }
    }

    /// What a processor answered a first payment that asked it to store the method.
    public struct StoringDecision: Sendable, Equatable {
        /// The payment's own answer.
        public var decision: ProcessorDecision
        /// The method stored for later charges; `nil` when the payment was declined and nothing
        /// was stored. For a payment the processor has not decided (``ProcessorDecision/pending(reference:)``),
        /// the method it will store once the payment succeeds, when it names one already (Stripe).
        public var stored: StoredPaymentMethod?

        /// A first payment's answer.
        /// - Parameters:
        ///   - decision: the payment's answer.
        ///   - stored: the method stored, if one was.
        public init(decision: ProcessorDecision, stored: StoredPaymentMethod?) {
            self.decision = decision
            self.stored = stored
        }
    }

    /// A processor that keeps a payer's method after a first, customer-initiated payment and
    /// charges it later, merchant-initiated, the payer absent (Apple Pay recurring payments,
    /// `PKRecurringPaymentRequest`): Stripe's `setup_future_usage=off_session` then
    /// `off_session=true`; Adyen's `storePaymentMethod` then `storedPaymentMethodId` with
    /// `shopperInteraction` `ContAuth`.
    ///
    /// ```swift
    /// let first = try await stripe.authorize(authorization, storing: .init(shopperReference: "agr_42"))
    /// guard let stored = first.stored else { return }
    /// let later = try await stripe.charge(stored, amount: fee, reference: "pay_2", idempotencyKey: "pay_2", model: .subscription)
    /// ```
    public protocol RecurringProcessor: PaymentProcessor {
        /// The first, customer-initiated payment with the Apple Pay token, storing the method.
        /// - Parameters:
        ///   - authorization: the payment, as ``PaymentProcessor/authorize(_:)`` takes it.
        ///   - terms: whom the method is stored for, and for what.
        /// - Returns: the payment's answer and, when it was authorised, the stored method.
        /// - Throws: `PaymentError.transport` when the outcome is unknown (ask again with the same key).
        func authorize(_ authorization: ProcessorAuthorization, storing terms: RecurringTerms) async throws -> StoringDecision

        /// A merchant-initiated charge of a stored method, the payer absent; captured at once.
        /// - Parameters:
        ///   - method: the stored method.
        ///   - amount: what to charge.
        ///   - reference: the merchant's reference for the payment.
        ///   - idempotencyKey: the same for every attempt of this charge (the trade number).
        ///   - model: the kind of charge (the model the method was stored for).
        /// - Returns: `authorized`, `pending`, or `declined` with a typed reason
        ///   (``DeclineReason/isRetryable`` says whether to try again later).
        /// - Throws: `PaymentError.transport` when the outcome is unknown (ask again with the same key).
        func charge(
            _ method: StoredPaymentMethod, amount: Money, reference: String, idempotencyKey: String, model: RecurringTerms.Model
        ) async throws -> ProcessorDecision

        /// Whether the processor still holds `method` for its shopper.
        /// - Parameter method: the stored method.
        /// - Returns: `false` once it was detached or deleted (or never stored for that shopper).
        func holds(_ method: StoredPaymentMethod) async throws -> Bool

        /// Deletes `method` at the processor (Stripe's detach, Adyen's token deletion): no charge
        /// can be made with it again.
        /// - Parameters:
        ///   - method: the stored method.
        ///   - idempotencyKey: the same for every attempt of this removal.
        /// - Returns: `true` when it was removed now, `false` when the processor no longer held it.
        func remove(_ method: StoredPaymentMethod, idempotencyKey: String) async throws -> Bool
    }
}

public import Cashier

extension ApplePay {
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

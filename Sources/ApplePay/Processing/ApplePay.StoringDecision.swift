extension ApplePay {
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
}

extension ApplePay {
    /// A payment method a processor keeps for a shopper after a first, customer-initiated payment
    /// stored it (``RecurringProcessor/authorize(_:storing:)``): what merchant-initiated charges
    /// are made with later, the payer absent.
    ///
    /// Stripe keeps it as a PaymentMethod attached to a Customer (`cus_…` and `pm_…`); Adyen as
    /// a token under the merchant's shopper reference (the `shopperReference` and the
    /// `storedPaymentMethodId`). ``reference`` joins the two into one string to keep.
    ///
    /// ```swift
    /// let method = ApplePay.StoredPaymentMethod(shopper: "cus_123", method: "pm_456")
    /// method.reference  // "cus_123/pm_456"
    /// ApplePay.StoredPaymentMethod(reference: "cus_123/pm_456") == method  // true
    /// ```
    public struct StoredPaymentMethod: Sendable, Hashable {
        /// Whom the processor keeps it for: Stripe's Customer (`cus_…`), Adyen's `shopperReference`.
        public var shopper: String
        /// The processor's id for the method: Stripe's PaymentMethod (`pm_…`), Adyen's `storedPaymentMethodId`.
        public var method: String

        /// A stored method from its two parts.
        /// - Parameters:
        ///   - shopper: Stripe's Customer id, or Adyen's shopper reference.
        ///   - method: Stripe's PaymentMethod id, or Adyen's stored payment method id.
        public init(shopper: String, method: String) {
            self.shopper = shopper
            self.method = method
        }

        /// `shopper/method`, one string to keep (the method's id never holds a `/`).
        public var reference: String { shopper + "/" + method }

        /// Reads ``reference``.
        /// - Parameter reference: `shopper/method`, split at its last `/`.
        /// - Returns: `nil` when either part is empty or there is no `/`.
        public init?(reference: String) {
            guard let slash = reference.lastIndex(of: "/") else { return nil }
            let shopper = String(reference[..<slash])
            let method = String(reference[reference.index(after: slash)...])
            guard !shopper.isEmpty, !method.isEmpty else { return nil }
            self.init(shopper: shopper, method: method)
        }
    }
}

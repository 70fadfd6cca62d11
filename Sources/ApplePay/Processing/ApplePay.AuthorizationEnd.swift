extension ApplePay {
    /// Why a processor no longer holds an authorisation that was never captured: what
    /// ``PaymentProcessor/authorizationEnded(_:)`` finds when a capture is refused.
    public struct AuthorizationEnd: Sendable, Equatable {
        /// Who says so, as the merchant knows it (`Stripe`): its records name it (lower-cased), and
        /// the reason says "cancelled at …".
        public var processor: String
        /// The processor let it lapse (a card's hold lasts about seven days); `false`: it was
        /// cancelled there, outside Cashier.
        public var lapsed: Bool
        /// The processor's own word for it (Stripe's `cancellation_reason`), if it gave one.
        public var reason: String?

        public init(processor: String, lapsed: Bool, reason: String?) {
            self.processor = processor
            self.lapsed = lapsed
            self.reason = reason
        }

        /// What Stripe's PaymentIntent says: ended when it is `canceled` (``stripe(cancellationReason:)``);
        /// `nil` for any other status.
        public static func stripe(status: String?, cancellationReason: String?) -> AuthorizationEnd? {
            status == "canceled" ? stripe(cancellationReason: cancellationReason) : nil
        }

        /// A Stripe PaymentIntent that was canceled: lapsed when its `cancellation_reason` is
        /// `automatic` (Stripe's cancel of a hold past its seven days).
        public static func stripe(cancellationReason: String?) -> AuthorizationEnd {
            AuthorizationEnd(processor: "Stripe", lapsed: cancellationReason == "automatic", reason: cancellationReason)
        }
    }
}

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
}

public import Cashier
public import Foundation

extension ApplePay.Commitment.Recurring {
    /// A subscription to show on the sheet (`recurringPaymentRequest`, `PKRecurringPaymentRequest`):
    /// the token it yields is a merchant token (MPAN) where the issuer supports one, which the
    /// processor keeps charging after the device is replaced.
    ///
    /// ```swift
    /// let monthly = ApplePay.Commitment.Recurring.Billing(label: "Pro", amount: fee, intervalUnit: .month)
    /// try request.commit(to: .recurring(.init(
    ///     paymentDescription: "Example Pro", regularBilling: monthly,
    ///     managementURL: URL(string: "https://example.com/account")!)))
    /// ```
    /// - Parameters:
    ///   - paymentDescription: what the payer subscribes to, as the sheet shows it.
    ///   - regularBilling: the regular charge.
    ///   - managementURL: where the payer manages or cancels it (https).
    ///   - trialBilling: a trial before the regular charge, if any.
    ///   - billingAgreement: the terms the payer agrees to, shown on the sheet.
    ///   - tokenNotificationURL: where Apple sends merchant token events (https).
    public init(
        paymentDescription: String, regularBilling: Billing, managementURL: URL, trialBilling: Billing? = nil,
        billingAgreement: String? = nil, tokenNotificationURL: URL? = nil
    ) {
        self.init(
            paymentDescription: paymentDescription, regularBilling: regularBilling, trialBilling: trialBilling,
            billingAgreement: billingAgreement, managementURL: managementURL, tokenNotificationURL: tokenNotificationURL)
    }
}

extension ApplePay.Commitment.Recurring.Billing {
    /// One recurring charge (`PKRecurringPaymentSummaryItem`, `paymentTiming` `recurring`).
    /// - Parameters:
    ///   - label: what the sheet shows for it.
    ///   - amount: each charge, in the request's currency.
    ///   - intervalUnit: the unit of the period (`recurringPaymentIntervalUnit`).
    ///   - intervalCount: how many units between charges (`recurringPaymentIntervalCount`, 1 to 1000).
    ///   - startDate: the first charge's date (`recurringPaymentStartDate`), if not today.
    ///   - endDate: the last charge's date (`recurringPaymentEndDate`), if there is one.
    public init(
        label: String, amount: Money, intervalUnit: ApplePay.Commitment.IntervalUnit, intervalCount: Int = 1, startDate: Date? = nil,
        endDate: Date? = nil
    ) {
        self.init(
            label: label, amount: amount, startDate: startDate, endDate: endDate, intervalUnit: intervalUnit, intervalCount: intervalCount)
    }
}

public import Foundation

/// A subscription, deferred charge or automatic reload the server put on the Apple Pay request
/// (Apple Pay JS's `recurringPaymentRequest`, `deferredPaymentRequest`,
/// `automaticReloadPaymentRequest`), typed for PassKit's `PKRecurringPaymentRequest`, … Amounts
/// stay decimal strings, as the server priced them.
public enum ApplePayCommitment: Sendable, Equatable {
    public struct Billing: Sendable, Equatable {
        public let label: String
        public let amount: String
        public let startDate: Date?
        public let endDate: Date?
        /// `minute`, `hour`, `day`, `month` or `year`.
        public let intervalUnit: String
        public let intervalCount: Int
    }

    case recurring(
        paymentDescription: String, regularBilling: Billing, trialBilling: Billing?, billingAgreement: String?, managementURL: URL,
        tokenNotificationURL: URL?)
    case deferred(
        paymentDescription: String, label: String, amount: String, deferredDate: Date, billingAgreement: String?, managementURL: URL,
        tokenNotificationURL: URL?, freeCancellationDate: Date?, freeCancellationTimeZone: TimeZone?)
    case automaticReload(
        paymentDescription: String, label: String, amount: String, thresholdAmount: String, billingAgreement: String?, managementURL: URL,
        tokenNotificationURL: URL?)

    /// Reads the one the request carries; `nil` when it has none.
    /// - Throws: ``CashierClientError`` `invalid_response` naming the field.
    init?(request object: [String: Any]) throws {
        func invalid(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the Apple Pay request has no valid \(field)")
        }
        let dates = ISO8601DateFormatter()
        func fields(_ name: String) throws -> [String: Any]? {
            guard let value = object[name] else { return nil }
            guard let fields = value as? [String: Any] else { throw invalid(name) }
            return fields
        }
        func text(_ fields: [String: Any], _ key: String, _ path: String) throws -> String {
            guard let value = fields[key] as? String, !value.isEmpty else { throw invalid("\(path).\(key)") }
            return value
        }
        func url(_ fields: [String: Any], _ key: String, _ path: String, required: Bool = true) throws -> URL? {
            guard fields[key] != nil || required else { return nil }
            guard let url = URL(string: try text(fields, key, path)), url.scheme == "https" else { throw invalid("\(path).\(key)") }
            return url
        }
        func date(_ fields: [String: Any], _ key: String, _ path: String, required: Bool = false) throws -> Date? {
            guard fields[key] != nil || required else { return nil }
            guard let date = dates.date(from: try text(fields, key, path)) else { throw invalid("\(path).\(key)") }
            return date
        }
        func amount(_ fields: [String: Any], _ key: String, _ path: String) throws -> String {
            let value = try text(fields, key, path)
            guard ApplePayPaymentRequest.isDecimal(value) else { throw invalid("\(path).\(key)") }
            return value
        }
        func billing(_ fields: [String: Any]?, _ path: String) throws -> Billing? {
            guard let fields else { return nil }
            return Billing(
                label: try text(fields, "label", path), amount: try amount(fields, "amount", path),
                startDate: try date(fields, "recurringPaymentStartDate", path), endDate: try date(fields, "recurringPaymentEndDate", path),
                intervalUnit: fields["recurringPaymentIntervalUnit"] as? String ?? "month",
                intervalCount: fields["recurringPaymentIntervalCount"] as? Int ?? 1)
        }
        if let request = try fields("recurringPaymentRequest") {
            let path = "recurringPaymentRequest"
            guard let regular = try billing(request["regularBilling"] as? [String: Any], path + ".regularBilling") else {
                throw invalid(path + ".regularBilling")
            }
            self = .recurring(
                paymentDescription: try text(request, "paymentDescription", path), regularBilling: regular,
                trialBilling: try billing(request["trialBilling"] as? [String: Any], path + ".trialBilling"),
                billingAgreement: request["billingAgreement"] as? String, managementURL: try url(request, "managementURL", path)!,
                tokenNotificationURL: try url(request, "tokenNotificationURL", path, required: false))
        } else if let request = try fields("deferredPaymentRequest") {
            let path = "deferredPaymentRequest"
            guard let billing = request["deferredBilling"] as? [String: Any] else { throw invalid(path + ".deferredBilling") }
            self = .deferred(
                paymentDescription: try text(request, "paymentDescription", path), label: try text(billing, "label", path),
                amount: try amount(billing, "amount", path), deferredDate: try date(billing, "deferredPaymentDate", path, required: true)!,
                billingAgreement: request["billingAgreement"] as? String, managementURL: try url(request, "managementURL", path)!,
                tokenNotificationURL: try url(request, "tokenNotificationURL", path, required: false),
                freeCancellationDate: try date(request, "freeCancellationDate", path),
                freeCancellationTimeZone: (request["freeCancellationDateTimeZone"] as? String).flatMap(TimeZone.init(identifier:)))
        } else if let request = try fields("automaticReloadPaymentRequest") {
            let path = "automaticReloadPaymentRequest"
            guard let billing = request["automaticReloadBilling"] as? [String: Any] else { throw invalid(path + ".automaticReloadBilling") }
            self = .automaticReload(
                paymentDescription: try text(request, "paymentDescription", path), label: try text(billing, "label", path),
                amount: try amount(billing, "amount", path),
                thresholdAmount: try amount(billing, "automaticReloadPaymentThresholdAmount", path),
                billingAgreement: request["billingAgreement"] as? String, managementURL: try url(request, "managementURL", path)!,
                tokenNotificationURL: try url(request, "tokenNotificationURL", path, required: false))
        } else {
            return nil
        }
    }
}

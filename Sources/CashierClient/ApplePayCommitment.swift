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

    /// Apple Pay JS's `recurringPaymentRequest`, each field read if present.
    struct Recurring: Decodable {
        let paymentDescription: String?
        let regularBilling: BillingJSON?
        let trialBilling: BillingJSON?
        let billingAgreement: String?
        let managementURL: String?
        let tokenNotificationURL: String?
    }

    /// Apple Pay JS's `deferredPaymentRequest`.
    struct Deferred: Decodable {
        struct DeferredBilling: Decodable {
            let label: String?
            let amount: String?
            let deferredPaymentDate: String?
        }
        let paymentDescription: String?
        let deferredBilling: DeferredBilling?
        let billingAgreement: String?
        let managementURL: String?
        let tokenNotificationURL: String?
        let freeCancellationDate: String?
        let freeCancellationDateTimeZone: String?
    }

    /// Apple Pay JS's `automaticReloadPaymentRequest`.
    struct AutomaticReload: Decodable {
        struct ReloadBilling: Decodable {
            let label: String?
            let amount: String?
            let automaticReloadPaymentThresholdAmount: String?
        }
        let paymentDescription: String?
        let automaticReloadBilling: ReloadBilling?
        let billingAgreement: String?
        let managementURL: String?
        let tokenNotificationURL: String?
    }

    /// A recurring payment's regular or trial billing.
    struct BillingJSON: Decodable {
        let label: String?
        let amount: String?
        let recurringPaymentStartDate: String?
        let recurringPaymentEndDate: String?
        let recurringPaymentIntervalUnit: String?
        let recurringPaymentIntervalCount: Int?
    }

    /// Reads the one the request carries; `nil` when it has none.
    /// - Throws: ``CashierClientError`` `invalid_response` naming the field.
    init?(request object: ApplePayPaymentRequest.JSON) throws {
        func invalid(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the Apple Pay request has no valid \(field)")
        }
        let dates = ISO8601DateFormatter()
        func text(_ value: String?, _ path: String) throws -> String {
            guard let value, !value.isEmpty else { throw invalid(path) }
            return value
        }
        func url(_ value: String?, _ path: String) throws -> URL {
            guard let url = URL(string: try text(value, path)), url.scheme == "https" else { throw invalid(path) }
            return url
        }
        func optionalURL(_ value: String?, _ path: String) throws -> URL? {
            try value.map { try url($0, path) }
        }
        func date(_ value: String?, _ path: String) throws -> Date? {
            guard let value else { return nil }
            guard let date = dates.date(from: try text(value, path)) else { throw invalid(path) }
            return date
        }
        func amount(_ value: String?, _ path: String) throws -> String {
            let value = try text(value, path)
            guard ApplePayPaymentRequest.isDecimal(value) else { throw invalid(path) }
            return value
        }
        func billing(_ fields: BillingJSON?, _ path: String) throws -> Billing? {
            guard let fields else { return nil }
            return Billing(
                label: try text(fields.label, path + ".label"), amount: try amount(fields.amount, path + ".amount"),
                startDate: try date(fields.recurringPaymentStartDate, path + ".recurringPaymentStartDate"),
                endDate: try date(fields.recurringPaymentEndDate, path + ".recurringPaymentEndDate"),
                intervalUnit: fields.recurringPaymentIntervalUnit ?? "month", intervalCount: fields.recurringPaymentIntervalCount ?? 1)
        }
        if let request = object.recurringPaymentRequest {
            let path = "recurringPaymentRequest"
            guard let regular = try billing(request.regularBilling, path + ".regularBilling") else {
                throw invalid(path + ".regularBilling")
            }
            self = .recurring(
                paymentDescription: try text(request.paymentDescription, path + ".paymentDescription"), regularBilling: regular,
                trialBilling: try billing(request.trialBilling, path + ".trialBilling"), billingAgreement: request.billingAgreement,
                managementURL: try url(request.managementURL, path + ".managementURL"),
                tokenNotificationURL: try optionalURL(request.tokenNotificationURL, path + ".tokenNotificationURL"))
        } else if let request = object.deferredPaymentRequest {
            let path = "deferredPaymentRequest"
            guard let billing = request.deferredBilling else { throw invalid(path + ".deferredBilling") }
            guard let deferredDate = try date(billing.deferredPaymentDate, path + ".deferredPaymentDate") else {
                throw invalid(path + ".deferredPaymentDate")
            }
            self = .deferred(
                paymentDescription: try text(request.paymentDescription, path + ".paymentDescription"),
                label: try text(billing.label, path + ".label"), amount: try amount(billing.amount, path + ".amount"),
                deferredDate: deferredDate, billingAgreement: request.billingAgreement,
                managementURL: try url(request.managementURL, path + ".managementURL"),
                tokenNotificationURL: try optionalURL(request.tokenNotificationURL, path + ".tokenNotificationURL"),
                freeCancellationDate: try date(request.freeCancellationDate, path + ".freeCancellationDate"),
                freeCancellationTimeZone: request.freeCancellationDateTimeZone.flatMap(TimeZone.init(identifier:)))
        } else if let request = object.automaticReloadPaymentRequest {
            let path = "automaticReloadPaymentRequest"
            guard let billing = request.automaticReloadBilling else { throw invalid(path + ".automaticReloadBilling") }
            self = .automaticReload(
                paymentDescription: try text(request.paymentDescription, path + ".paymentDescription"),
                label: try text(billing.label, path + ".label"), amount: try amount(billing.amount, path + ".amount"),
                thresholdAmount: try amount(
                    billing.automaticReloadPaymentThresholdAmount, path + ".automaticReloadPaymentThresholdAmount"),
                billingAgreement: request.billingAgreement, managementURL: try url(request.managementURL, path + ".managementURL"),
                tokenNotificationURL: try optionalURL(request.tokenNotificationURL, path + ".tokenNotificationURL"))
        } else {
            return nil
        }
    }
}

public import Cashier
public import Foundation

extension ApplePay {
    /// What a payment request commits the payer to beyond today's charge — Apple Pay JS 14+
    /// (`recurringPaymentRequest`, `deferredPaymentRequest`, `automaticReloadPaymentRequest`),
    /// iOS 16+ (`PKRecurringPaymentRequest`, …). Amounts are `Money` in the request's currency,
    /// dates ISO 8601 in the JSON; every URL must be https.
    public enum Commitment: Sendable, Equatable {
        case recurring(Recurring)
        case deferred(Deferred)
        case automaticReload(AutomaticReload)

        public enum IntervalUnit: String, Sendable, CaseIterable {
            case minute, hour, day, month, year
        }

        /// A subscription: the regular billing, and optionally a trial before it.
        public struct Recurring: Sendable, Equatable {
            public struct Billing: Sendable, Equatable {
                public var label: String
                public var amount: Money
                public var startDate: Date?
                public var endDate: Date?
                public var intervalUnit: IntervalUnit
                public var intervalCount: Int
            }
            public var paymentDescription: String
            public var regularBilling: Billing
            public var trialBilling: Billing?
            public var billingAgreement: String?
            public var managementURL: URL
            public var tokenNotificationURL: URL?
        }

        /// A charge later (a hotel, a pre-order), with an optional free-cancellation date.
        public struct Deferred: Sendable, Equatable {
            public var paymentDescription: String
            public var label: String
            public var amount: Money
            public var deferredPaymentDate: Date
            public var billingAgreement: String?
            public var managementURL: URL
            public var tokenNotificationURL: URL?
            public var freeCancellationDate: Date?
            /// An IANA time zone (`Asia/Shanghai`) for ``freeCancellationDate``.
            public var freeCancellationDateTimeZone: String?
        }

        /// A stored-value top-up when the balance falls below a threshold.
        public struct AutomaticReload: Sendable, Equatable {
            public var paymentDescription: String
            public var label: String
            public var amount: Money
            public var thresholdAmount: Money
            public var billingAgreement: String?
            public var managementURL: URL
            public var tokenNotificationURL: URL?
        }

        /// The Apple Pay JS field it is sent as.
        public var field: String {
            switch self {
            case .recurring: "recurringPaymentRequest"
            case .deferred: "deferredPaymentRequest"
            case .automaticReload: "automaticReloadPaymentRequest"
            }
        }

        /// Reads one of the three Apple Pay JS objects, amounts as decimal strings in `currency`.
        /// - Parameters:
        ///   - json: `{"recurringPaymentRequest": {…}}` (or the deferred or automatic-reload one).
        ///   - currency: the order's currency, which every amount is in.
        ///   - now: when the payer sees it (dates must be after it).
        /// - Throws: `PaymentError.invalidRequest` naming the field and the rule.
        public init(json: [String: Any], currency: Currency, now: Date = Date()) throws {
            let present = ["recurringPaymentRequest", "deferredPaymentRequest", "automaticReloadPaymentRequest"].filter { json[$0] != nil }
            guard present.count == 1, let name = present.first, let object = json[name] as? [String: Any] else {
                throw Self.invalid("give exactly one of recurringPaymentRequest, deferredPaymentRequest, automaticReloadPaymentRequest")
            }
            let reader = Reader(object: object, path: name, currency: currency)
            switch name {
            case "recurringPaymentRequest":
                let regular = try reader.billing("regularBilling", required: true)!
                let trial = try reader.billing("trialBilling", required: false)
                if let trial, let trialEnd = trial.endDate, let start = regular.startDate, trialEnd > start {
                    throw Self.invalid("\(name).trialBilling must end before regularBilling starts")
                }
                self = .recurring(
                    Recurring(
                        paymentDescription: try reader.text("paymentDescription"), regularBilling: regular, trialBilling: trial,
                        billingAgreement: try reader.text("billingAgreement", required: false),
                        managementURL: try reader.url("managementURL")!,
                        tokenNotificationURL: try reader.url("tokenNotificationURL", required: false)
                    ))
            case "deferredPaymentRequest":
                let billing = try reader.object("deferredBilling")
                let item = Reader(object: billing, path: name + ".deferredBilling", currency: currency)
                let date = try item.date("deferredPaymentDate")!
                guard date > now else { throw Self.invalid("\(name).deferredBilling.deferredPaymentDate must be in the future") }
                let cancellation = try reader.date("freeCancellationDate", required: false)
                if let cancellation, cancellation > date {
                    throw Self.invalid("\(name).freeCancellationDate must not be after the deferred payment date")
                }
                let zone = try reader.text("freeCancellationDateTimeZone", required: false)
                if let zone, TimeZone(identifier: zone) == nil {
                    throw Self.invalid("\(name).freeCancellationDateTimeZone '\(zone)' is not an IANA time zone")
                }
                self = .deferred(
                    Deferred(
                        paymentDescription: try reader.text("paymentDescription"), label: try item.text("label"),
                        amount: try item.amount("amount"),
                        deferredPaymentDate: date, billingAgreement: try reader.text("billingAgreement", required: false),
                        managementURL: try reader.url("managementURL")!,
                        tokenNotificationURL: try reader.url("tokenNotificationURL", required: false),
                        freeCancellationDate: cancellation, freeCancellationDateTimeZone: zone))
            default:
                let billing = try reader.object("automaticReloadBilling")
                let item = Reader(object: billing, path: name + ".automaticReloadBilling", currency: currency)
                let threshold = try item.amount("automaticReloadPaymentThresholdAmount")
                guard threshold.isPositive else {
                    throw Self.invalid("\(name).automaticReloadBilling.automaticReloadPaymentThresholdAmount must be more than zero")
                }
                self = .automaticReload(
                    AutomaticReload(
                        paymentDescription: try reader.text("paymentDescription"), label: try item.text("label"),
                        amount: try item.amount("amount"),
                        thresholdAmount: threshold, billingAgreement: try reader.text("billingAgreement", required: false),
                        managementURL: try reader.url("managementURL")!,
                        tokenNotificationURL: try reader.url("tokenNotificationURL", required: false)))
            }
        }

        /// The Apple Pay JS object (under ``field``).
        public func jsonObject() -> [String: Any] {
            let dates = ISO8601DateFormatter()
            func put(_ object: inout [String: Any], _ key: String, _ value: Any?) { if let value { object[key] = value } }
            func billing(_ billing: Recurring.Billing) -> [String: Any] {
                var item: [String: Any] = [
                    "label": billing.label, "amount": billing.amount.decimalString, "type": "final", "paymentTiming": "recurring",
                    "recurringPaymentIntervalUnit": billing.intervalUnit.rawValue, "recurringPaymentIntervalCount": billing.intervalCount,
                ]
                put(&item, "recurringPaymentStartDate", billing.startDate.map(dates.string))
                put(&item, "recurringPaymentEndDate", billing.endDate.map(dates.string))
                return item
            }
            var object: [String: Any]
            switch self {
            case .recurring(let request):
                object = [
                    "paymentDescription": request.paymentDescription, "regularBilling": billing(request.regularBilling),
                    "managementURL": request.managementURL.absoluteString,
                ]
                put(&object, "trialBilling", request.trialBilling.map(billing))
                put(&object, "billingAgreement", request.billingAgreement)
                put(&object, "tokenNotificationURL", request.tokenNotificationURL?.absoluteString)
            case .deferred(let request):
                object = [
                    "paymentDescription": request.paymentDescription, "managementURL": request.managementURL.absoluteString,
                    "deferredBilling": [
                        "label": request.label, "amount": request.amount.decimalString, "type": "final", "paymentTiming": "deferred",
                        "deferredPaymentDate": dates.string(from: request.deferredPaymentDate),
                    ],
                ]
                put(&object, "billingAgreement", request.billingAgreement)
                put(&object, "tokenNotificationURL", request.tokenNotificationURL?.absoluteString)
                put(&object, "freeCancellationDate", request.freeCancellationDate.map(dates.string))
                put(&object, "freeCancellationDateTimeZone", request.freeCancellationDateTimeZone)
            case .automaticReload(let request):
                object = [
                    "paymentDescription": request.paymentDescription, "managementURL": request.managementURL.absoluteString,
                    "automaticReloadBilling": [
                        "label": request.label, "amount": request.amount.decimalString, "type": "final", "paymentTiming": "automaticReload",
                        "automaticReloadPaymentThresholdAmount": request.thresholdAmount.decimalString,
                    ],
                ]
                put(&object, "billingAgreement", request.billingAgreement)
                put(&object, "tokenNotificationURL", request.tokenNotificationURL?.absoluteString)
            }
            return object
        }

        static func invalid(_ reason: String) -> PaymentError {
            PaymentError(.invalidRequest, provider: .applePay, "Apple Pay request: \(reason)")
        }

        /// Reads fields of one object, naming `path.field` in every error.
        struct Reader {
            let object: [String: Any]
            let path: String
            let currency: Currency

            func text(_ key: String, required: Bool = true) throws -> String? {
                guard let value = object[key] else {
                    if required { throw Commitment.invalid("\(path).\(key) is missing") }
                    return nil
                }
                guard let text = value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty, text.count <= 500 else {
                    throw Commitment.invalid("\(path).\(key) must be a non-empty string of at most 500 characters")
                }
                return text
            }

            func text(_ key: String) throws -> String { try text(key, required: true)! }

            func object(_ key: String) throws -> [String: Any] {
                guard let value = object[key] as? [String: Any] else {
                    throw Commitment.invalid("\(path).\(key) is missing or not an object")
                }
                return value
            }

            func amount(_ key: String) throws -> Money {
                guard let text = object[key] as? String, let money = try? Money(decimal: text, currency: currency), !money.isNegative else {
                    throw Commitment.invalid("\(path).\(key) must be a decimal amount of zero or more in \(currency.code) (e.g. \"9.99\")")
                }
                return money
            }

            func url(_ key: String, required: Bool = true) throws -> URL? {
                guard let text = try self.text(key, required: required) else { return nil }
                guard let url = URL(string: text), url.scheme == "https", url.host != nil else {
                    throw Commitment.invalid("\(path).\(key) '\(text)' must be an https URL")
                }
                return url
            }

            func date(_ key: String, required: Bool = true) throws -> Date? {
                guard let text = try self.text(key, required: required) else { return nil }
                guard let date = ISO8601DateFormatter().date(from: text) else {
                    throw Commitment.invalid("\(path).\(key) '\(text)' is not an ISO 8601 time (2027-01-01T00:00:00Z)")
                }
                return date
            }

            func billing(_ key: String, required: Bool) throws -> Recurring.Billing? {
                guard object[key] != nil || required else { return nil }
                let item = Reader(object: try self.object(key), path: "\(path).\(key)", currency: currency)
                guard let unitName = item.object["recurringPaymentIntervalUnit"] as? String ?? Optional("month"),
                    let unit = IntervalUnit(rawValue: unitName)
                else {
                    throw Commitment.invalid(
                        "\(path).\(key).recurringPaymentIntervalUnit must be one of \(IntervalUnit.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                let count = item.object["recurringPaymentIntervalCount"] as? Int ?? 1
                guard (1...1000).contains(count) else {
                    throw Commitment.invalid("\(path).\(key).recurringPaymentIntervalCount must be 1 to 1000")
                }
                let start = try item.date("recurringPaymentStartDate", required: false)
                let end = try item.date("recurringPaymentEndDate", required: false)
                if let start, let end, end <= start { throw Commitment.invalid("\(path).\(key) ends before it starts") }
                return Recurring.Billing(
                    label: try item.text("label"), amount: try item.amount("amount"), startDate: start, endDate: end, intervalUnit: unit,
                    intervalCount: count)
            }
        }
    }
}

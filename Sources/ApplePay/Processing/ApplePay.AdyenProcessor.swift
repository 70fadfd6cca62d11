public import Cashier
import CashierCrypto
public import Foundation

extension ApplePay {
    /// Adyen's Checkout API, in its encrypted-token mode: `POST /payments` with
    /// `paymentMethod: {"type": "applepay", "applePayToken": <base64 of paymentData>}`, then
    /// `/payments/{pspReference}/captures`, `/cancels` and `/refunds`, each with an
    /// `Idempotency-Key`. Adyen answers modifications with `received` and confirms them by webhook
    /// (``AdyenNotification``): `received` is ``ProcessorOperation/succeeded(reference:)`` here, and
    /// the merchant server, given the webhook's HMAC key, counts a refund as accepted until its
    /// `REFUND` webhook confirms or fails it (Adyen refuses a modification it cannot make up front).
    ///
    /// Adyen's Checkout API lists no payments; its records are report files. With a report user's
    /// key (``ReportAccess``), ``payments(from:to:)`` downloads the daily Payment accounting report
    /// (`payments_accounting_report_YYYY_MM_DD.csv`) and reads each payment's lifecycle from it
    /// (`Authorised`, `SentForSettle`, `Cancelled`, `SentForRefund` records); without one it
    /// returns `nil` and Adyen payments are counted, not reconciled.
    public struct AdyenProcessor: PaymentProcessor {
        /// Where the reports are downloaded, and the report user's API key.
        public struct ReportAccess: Sendable {
            public static let testURL = URL(string: "https://ca-test.adyen.com/reports/download/MerchantAccount/")!
            public static let liveURL = URL(string: "https://ca-live.adyen.com/reports/download/MerchantAccount/")!
            public var baseURL: URL
            public var apiKey: String
            public init(baseURL: URL = testURL, apiKey: String) {
                self.baseURL = baseURL
                self.apiKey = apiKey
            }
        }

        /// Checkout API version used in URLs.
        public static let apiVersion = "v72"
        public static let testURL = URL(string: "https://checkout-test.adyen.com/\(apiVersion)")!

        /// The live endpoint for a merchant's prefix (Customer Area → Developers → API URLs).
        public static func liveURL(prefix: String) -> URL? {
            URL(string: "https://\(prefix)-checkout-live.adyenpayments.com/checkout/\(apiVersion)")
        }

        private let apiKey: String
        let merchantAccount: String
        private let baseURL: URL
        private let reports: ReportAccess?
        private let call: ProcessorCall

        public init(
            apiKey: String, merchantAccount: String, baseURL: URL = testURL, reports: ReportAccess? = nil,
            transport: any HTTPTransport = URLSessionTransport(), attempts: Int = 3, backoff: Duration = .milliseconds(200)
        ) {
            self.apiKey = apiKey
            self.merchantAccount = merchantAccount
            self.baseURL = baseURL
            self.reports = reports
            self.call = ProcessorCall(transport: transport, attempts: attempts, backoff: backoff, processor: "Adyen")
        }

        public var tokenForm: TokenForm { .encrypted }

        /// The `/payments` body Cashier sends (also what the interop test compares with the Adyen SDK's).
        public func paymentBody(_ authorization: ProcessorAuthorization) throws -> [String: Any] {
            var body: [String: Any] = [
                "amount": Self.amount(authorization.amount), "reference": authorization.reference, "merchantAccount": merchantAccount,
                "paymentMethod": ["type": "applepay", "applePayToken": Base64.encode(Array(try authorization.token.paymentDataJSON()))],
                "shopperInteraction": "Ecommerce",
            ]
            if !authorization.capture { body["additionalData"] = ["manualCapture": "true"] }
            if let postalCode = authorization.billingPostalCode { body["billingAddress"] = ["postalCode": postalCode] }
            return body
        }

        public func authorize(_ authorization: ProcessorAuthorization) async throws -> ProcessorDecision {
            let answer = try await post("/payments", try paymentBody(authorization), idempotencyKey: authorization.idempotencyKey)
            return try decision(answer)
        }

        /// A `/payments` answer as a decision: `Authorised`, `Received`/`Pending`, or `Refused`/`Cancelled`
        /// with Adyen's `refusalReason`; anything else thrown.
        func decision(_ answer: (status: Int, json: [String: Any])) throws -> ProcessorDecision {
            guard answer.status == 200 else { throw rejected(answer) }
            switch answer.json["resultCode"] as? String {
            case "Authorised":
                guard let reference = answer.json["pspReference"] as? String else { throw malformed("Authorised without a pspReference") }
                return .authorized(reference: reference)
            case "Received", "Pending":
                // Not decided yet: no money until Adyen's AUTHORISATION webhook says.
                guard let reference = answer.json["pspReference"] as? String else {
                    throw malformed("\(answer.json["resultCode"] as? String ?? "Received") without a pspReference")
                }
                return .pending(reference: reference)
            case "Refused", "Cancelled":
                let reason = answer.json["refusalReason"] as? String ?? "Refused"
                return .declined(Self.reason(reason, code: answer.json["refusalReasonCode"] as? String), message: reason)
            case let other:
                throw PaymentError(
                    .providerRejected, provider: .applePay,
                    "Adyen answered resultCode \(other ?? "none")\((answer.json["refusalReason"] as? String).map { ": \($0)" } ?? "")")
            }
        }

        public func capture(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation {
            try await modify(reference, "captures", amount: amount, idempotencyKey: idempotencyKey)
        }

        public func void(_ reference: String, idempotencyKey: String) async throws -> ProcessorOperation {
            try await modify(reference, "cancels", amount: nil, idempotencyKey: idempotencyKey)
        }

        public func refund(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation {
            try await modify(reference, "refunds", amount: amount, idempotencyKey: idempotencyKey)
        }

        private func modify(_ reference: String, _ kind: String, amount: Money?, idempotencyKey: String) async throws -> ProcessorOperation
        {
            var body: [String: Any] = ["merchantAccount": merchantAccount, "reference": idempotencyKey]
            if let amount { body["amount"] = Self.amount(amount) }
            let answer = try await post(
                "/payments/\(FormEncoding.escape(reference))/\(kind)", body, idempotencyKey: idempotencyKey)
            switch answer.status {
            case 200, 201:
                guard let id = answer.json["pspReference"] as? String else { throw malformed("a modification without a pspReference") }
                return .succeeded(reference: id)
            case 422: return .refused(answer.json["message"] as? String ?? "Adyen refused the \(kind.dropLast())")
            default: throw rejected(answer)
            }
        }

        func post(_ path: String, _ body: [String: Any], idempotencyKey: String) async throws -> (status: Int, json: [String: Any]) {
            try await send("POST", path, body, idempotencyKey: idempotencyKey)
        }

        /// One Checkout API request (`path` under the base URL, a JSON `body` when given).
        func send(_ method: String, _ path: String, _ body: [String: Any]?, idempotencyKey: String?) async throws -> (
            status: Int, json: [String: Any]
        ) {
            guard let url = URL(string: baseURL.absoluteString + path) else {
                throw PaymentError(.invalidConfiguration, provider: .applePay, "Adyen base URL \(baseURL) does not take \(path)")
            }
            var headers: HTTPHeaders = ["X-API-Key": apiKey]
            if let idempotencyKey { headers.add("Idempotency-Key", idempotencyKey) }
            var data = Data()
            if let body {
                headers.add("Content-Type", "application/json")
                data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            }
            let answer = try await call.send(HTTPRequest(method: method, url: url, headers: headers, body: data))
            if answer.status == 401 || answer.status == 403 {
                throw call.credentialsRefused(answer.status, answer.json["message"] as? String)
            }
            return answer
        }

        /// The payments booked in `[from, to)`, from the daily Payment accounting reports (UTC days
        /// covering the range; a day whose report is not generated yet is skipped).
        public func payments(from: Date, to: Date) async throws -> [ProcessorPayment]? {
            guard let reports else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            var day = calendar.startOfDay(for: from)
            var rows: [[String: String]] = []
            while day < to {
                let parts = calendar.dateComponents([.year, .month, .day], from: day)
                let name = String(
                    format: "payments_accounting_report_%04d_%02d_%02d.csv", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
                guard let url = URL(string: reports.baseURL.absoluteString + FormEncoding.escape(merchantAccount) + "/" + name) else {
                    break
                }
                let response = try await call.transport.send(HTTPRequest(method: "GET", url: url, headers: ["X-API-Key": reports.apiKey]))
                switch response.status {
                case 200: rows += try AccountingReport.rows(response.body)
                case 404: break
                case 401, 403: throw call.credentialsRefused(response.status, "the report user's key")
                default: throw PaymentError(.transport, provider: .applePay, "Adyen's report \(name) answered HTTP \(response.status)")
                }
                day = calendar.date(byAdding: .day, value: 1, to: day) ?? to
            }
            return try AccountingReport.payments(rows).filter { $0.createdAt >= from && $0.createdAt < to }
        }

        static func amount(_ money: Money) -> [String: Any] { ["currency": money.currency.code, "value": money.minorUnits] }

        /// Adyen's refusal reason (and code) as Apple Pay's reason.
        static func reason(_ text: String, code: String?) -> DeclineReason {
            switch (code, text) {
            case ("12", _), (_, "Not enough balance"): .insufficientFunds
            case ("6", _), (_, "Expired Card"): .expiredCard
            case (_, "AVS Declined"): .invalidBillingAddress
            case (_, "Pin validation not possible"), (_, "Pin tries exceeded"): .pinRequired
            case ("38", _), (_, "Authentication required"): .authenticationRequired
            default: .cardDeclined
            }
        }

        func rejected(_ answer: (status: Int, json: [String: Any])) -> PaymentError {
            PaymentError(
                .providerRejected, provider: .applePay,
                "Adyen answered HTTP \(answer.status): \(answer.json["message"] as? String ?? "no message") (\(answer.json["errorCode"] as? String ?? "no error code"))"
            )
        }

        func malformed(_ what: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .applePay, "Adyen sent \(what)")
        }
    }
}

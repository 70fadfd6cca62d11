import Cashier
import Foundation

extension ApplePay {
    /// One request to a processor's API, sent again (the same bytes, so the same idempotency key)
    /// when no answer arrives or the processor answers 429 or 5xx: Stripe and Adyen both return a
    /// repeated key's first result without acting twice.
    struct ProcessorCall: Sendable {
        let transport: any HTTPTransport
        /// Attempts in all (the first and the retries).
        let attempts: Int
        /// Before the second attempt; doubled for each later one.
        let backoff: Duration
        /// For messages: `Stripe`, `Adyen`.
        let processor: String

        /// - Returns: the status and the body parsed as a JSON object (empty when it is not one).
        /// - Throws: `PaymentError.transport` when every attempt went unanswered or failed on the processor's side.
        func send(_ request: HTTPRequest) async throws -> (status: Int, json: [String: Any]) {
            var delay = backoff
            var last = "no attempt was made"
            for attempt in 1...max(1, attempts) {
                if attempt > 1 {
                    try? await Task.sleep(for: delay)
                    delay *= 2
                }
                let response: HTTPResponse
                do {
                    response = try await transport.send(request)
                } catch let error as PaymentError {
                    last = error.message
                    continue
                }
                // 409 from Stripe: a request with this key is still running; it will answer.
                guard response.status < 500, response.status != 429, response.status != 409 else {
                    last = "HTTP \(response.status)"
                    continue
                }
                let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
                return (response.status, json)
            }
            throw PaymentError(
                .transport, provider: .applePay,
                "\(processor) did not answer after \(max(1, attempts)) attempts (\(last)); the outcome is unknown — ask again with the same idempotency key"
            )
        }

        /// What to say when the processor refuses the credentials.
        func credentialsRefused(_ status: Int, _ message: String?) -> PaymentError {
            PaymentError(
                .invalidConfiguration, provider: .applePay,
                "\(processor) refused the API key (HTTP \(status)\(message.map { ": \($0)" } ?? "")): check the key Cashier reads")
        }
    }
}

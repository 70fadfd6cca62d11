public import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import Foundation
import Synchronization

/// What the Stripe and Adyen simulators share: the processing keys they decrypt Apple Pay tokens
/// with (a real processor holds the merchant's payment processing key the same way), the
/// ``ApplePay/SandboxProcessor`` that keeps their money, and their idempotency: a repeated key
/// answers as the first request did, a key reused with another body is refused, and a key whose
/// first request is still running answers 409.
public final class ProcessorSandbox: Sendable {
    /// The money: authorisations, captures, voids and refunds.
    public let processor: ApplePay.SandboxProcessor
    private let keys = Mutex<[ApplePay.MerchantKey]>([])
    private let verifier: ApplePay.TokenVerifier
    private let replies = Mutex<[String: Reply]>([:])
    /// Requests that reached the processor (not answered from the idempotency cache).
    private let processed = Atomic<Int>(0)

    private enum Reply {
        case running(body: [UInt8])
        case done(body: [UInt8], response: HTTPServerResponse)
    }

    init(naming: ApplePay.SandboxProcessor.Naming, ca: ApplePayTestCA) {
        processor = ApplePay.SandboxProcessor(naming: naming)
        verifier = try! ApplePay.TokenVerifier(trustAnchors: [ca.root])
    }

    /// The handler of a simulator's `POST /sandbox/{processor}/decide`: `{"<field>": "<its id for the
    /// payment>", "outcome": "succeeded"|"failed"}` for a payment it left undecided; `decide` says why
    /// it cannot (422), and `answer` what is answered once it has.
    static func decideHandler(
        field: String, example: String, decide: @escaping @Sendable (String, Bool) async -> String?,
        answer: @escaping @Sendable (String) -> HTTPServerResponse
    ) -> Router.Handler {
        { request, _ in
            guard let object = SandboxControl.object(request),
                let reference = object[field] as? String, let outcome = object["outcome"] as? String,
                outcome == "succeeded" || outcome == "failed"
            else {
                return SandboxControl.invalid(#"expected {""# + field + #"":""# + example + #"","outcome":"succeeded"|"failed"}"#)
            }
            if let refusal = await decide(reference, outcome == "succeeded") {
                return .error(status: 422, code: "invalid_request", message: refusal)
            }
            return answer(reference)
        }
    }

    /// Lets the simulator decrypt tokens for this merchant (as a processor holding its processing key).
    public func register(processingKey: ApplePay.MerchantKey) {
        keys.withLock { $0.append(processingKey) }
    }

    /// Forgets every idempotency key, as Stripe does after 24 hours and Adyen after 7 days: a
    /// request repeated afterwards under an old key is acted on again.
    public func forgetIdempotencyKeys() {
        replies.withLock { $0.removeAll() }
    }

    /// How many requests were acted on, not answered from the idempotency cache.
    public var processedCount: Int { processed.load(ordering: .relaxed) }

    /// Verifies and decrypts `paymentData` JSON with a registered key.
    func decrypt(_ paymentData: Data) throws -> (ApplePay.PaymentToken, ApplePay.DecryptedPayment) {
        let token = try ApplePay.PaymentToken(json: paymentData)
        let decrypter = ApplePay.TokenDecrypter(merchantKeys: keys.withLock { $0 }, verifier: verifier)
        return (token, try decrypter.decrypt(token))
    }

    /// Answers `request` once per idempotency key (`nil`: no key, always acted on).
    /// - Parameters:
    ///   - conflict: the answer while the key's first request is still running.
    ///   - mismatch: the answer when the key was used with another body.
    func once(
        _ key: String?, _ request: HTTPServerRequest, conflict: HTTPServerResponse, mismatch: HTTPServerResponse,
        _ act: () async -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        guard let key, !key.isEmpty else {
            processed.add(1, ordering: .relaxed)
            return await act()
        }
        let slot = "\(request.method) \(request.path)\n\(key)"
        let earlier: HTTPServerResponse? = replies.withLock { replies in
            switch replies[slot] {
            case .running: return conflict
            case .done(let body, let response): return body == request.body ? response : mismatch
            case nil:
                replies[slot] = .running(body: request.body)
                return nil
            }
        }
        if let earlier { return earlier }
        processed.add(1, ordering: .relaxed)
        let response = await act()
        replies.withLock { replies in
            // A processor error is not remembered: the retry is acted on (nothing happened).
            if response.status >= 500 { replies[slot] = nil } else { replies[slot] = .done(body: request.body, response: response) }
        }
        return response
    }
}

import ApplePay
import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// `POST /v1/orders/{id}/payments/applepay/authorize`: the token verified and decrypted, checked
/// against the order, the authorisation reserved in the store (one at a time per order, a
/// token's `transactionId` once ever, never on a paid order), then the processor, then the record.
extension MerchantAPI {
    struct AuthorizationAnswer: Encodable {
        /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*`.
        let status: Int
        let order_status: String
        let message: String
        let payment_id: String?
    }

    func authorizeApplePay(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) != nil else { return Self.unauthorized }
        guard let applePay = configuration.applePay else {
            return .error(status: 400, code: "invalid_request", message: "Apple Pay is not configured on this server")
        }
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any], let token = body["token"],
            let tokenJSON = try? JSONSerialization.data(withJSONObject: token)
        else {
            return .error(status: 400, code: "invalid_request", message: #"expected {"token": <the PKPayment or its token as JSON>}"#)
        }
        do {
            guard let (order, _) = try await authorizedOrder(request, id: id, clientSecret: body["client_secret"] as? String) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            func answer(_ status: ApplePay.AuthorizationStatus, _ order: StoredOrder, _ message: String, payment: String? = nil)
                -> HTTPServerResponse
            {
                .json(
                    AuthorizationAnswer(status: status.rawValue, order_status: order.status.rawValue, message: message, payment_id: payment)
                )
            }
            let parsed: ApplePay.PaymentToken
            let decrypted: ApplePay.DecryptedPayment
            do {
                parsed = try ApplePay.PaymentToken(json: tokenJSON)
                decrypted = try applePay.decrypter.decrypt(parsed, applicationData: Array(order.id.utf8))
                audit?.secret([
                    decrypted.applicationPrimaryAccountNumber, decrypted.paymentData.onlinePaymentCryptogram, decrypted.paymentData.emvData,
                ])
                try decrypted.check(total: order.total)
            } catch let error as PaymentError {
                try await store.append(
                    EventRecord(kind: .applePayRefused, detail: Self.detail(["reason": error.message])), to: order.id, now: clock.now())
                return answer(.failure, order, error.message)
            }
            // Reserved before the processor hears of it: a paid order, a token seen before or an
            // authorisation already in flight is refused here, and the processor is not called.
            let start: PaymentStart
            do {
                start = try await store.beginPayment(
                    NewPayment(
                        orderID: order.id, method: .applePay, provider: .applePay, appID: applePay.merchantIdentifier,
                        status: .processing, walletToken: parsed.header.transactionId,
                        record: EventRecord(
                            kind: .paymentStarted, detail: Self.detail(["method": "applepay", "card": decrypted.maskedAccountNumber]))),
                    now: clock.now())
            } catch let error as StoreError where error.code == .conflict {
                return .error(status: 409, code: "token_reused", message: error.message)
            }
            for old in start.superseded {
                if let payer = await closeAttempt(old, reason: "superseded by \(start.payment.id)") {
                    try await store.recordPayment(
                        .failed(reason: "order \(order.id) was paid by \(payer)"), of: start.payment.id,
                        record: EventRecord(kind: .paymentFailed), now: clock.now())
                    return .error(
                        status: 409, code: "invalid_state", message: "order \(id) was paid by \(payer); the token was not charged")
                }
            }
            let decision: ApplePay.ProcessorDecision
            do {
                // The payment's id is the processor's reference: a retry never charges twice.
                decision = try await applePay.processor.authorize(decrypted, amount: order.total, reference: start.payment.id)
            } catch {
                try await store.recordPayment(
                    .failed(reason: "the processor did not answer"), of: start.payment.id,
                    record: EventRecord(kind: .applePayDeclined, detail: Self.detail(["reason": "the processor did not answer"])),
                    now: clock.now())
                throw error
            }
            guard case .authorized(let reference) = decision else {
                let recorded = try await store.recordPayment(
                    .failed(reason: "declined (\(decision.status.rawValue))"), of: start.payment.id,
                    record: EventRecord(
                        kind: .applePayDeclined,
                        detail: Self.detail(["card": decrypted.maskedAccountNumber, "status": "\(decision.status.rawValue)"])),
                    now: clock.now())
                return answer(decision.status, recorded.order, "declined", payment: start.payment.id)
            }
            let record = EventRecord(
                kind: .applePayAuthorized, detail: Self.detail(["card": decrypted.maskedAccountNumber, "processor_reference": reference]))
            guard
                let recorded = try await recordSuccess(
                    start.payment, amount: start.payment.amount, transactionID: reference, record: record)
            else { return answer(.failure, order, "the authorisation could not be recorded") }
            return answer(.success, recorded.order, "authorized", payment: start.payment.id)
        } catch {
            return Self.failure(error)
        }
    }
}

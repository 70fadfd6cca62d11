import ApplePay
import Cashier
import CashierHTTP
import Foundation

/// `POST /v1/applepay/sessions`: Apple Pay on the web's merchant validation. The page's
/// `onvalidatemerchant` hands the validation URL to this route (publishable or secret key);
/// the server refuses any host that is not Apple's, calls it over mutual TLS with the merchant
/// identity certificate (which never leaves the server), and returns Apple's opaque session
/// for `completeMerchantValidation`.
extension MerchantAPI {
    struct SessionBody: Decodable {
        let validation_url: String
    }

    func applePaySession(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard await caller(request) != nil else { return Self.unauthorized }
        guard let validator = configuration.applePay?.webSession else {
            return .error(
                status: 422, code: "invalid_request",
                message: "Apple Pay on the web is not configured: set applepay.web (domain, identity_certificate_file, identity_key_file)")
        }
        do {
            let body = try RequestProblem.decode(
                SessionBody.self, from: request,
                expected: #"{"validation_url":"https://apple-pay-gateway.apple.com/paymentservices/startSession"}"#)
            guard let url = URL(string: body.validation_url) else { throw RequestProblem("validation_url is not a URL") }
            let session = try await validator.merchantSession(validationURL: url)
            return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(session))
        } catch {
            return Self.failure(error)
        }
    }
}

import ApplePay
import Cashier
import CashierHTTP
import Foundation

/// The payer's routes: a payment started (the wallet's parameters), an Apple Pay token
/// authorised, the payment sheet's changes, Apple Pay on the web's merchant validation — each
/// throttled per address for the publishable key.
struct PaymentsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let payer = routes.add(middleware.payer).add(middleware.authenticate)
        payer.post("/v1/orders/{id}/payments", name: "start_payment") { request, context in
            var body = try request.decode(
                PaymentRequestBody.self, expected: #"{"method":"wechat.native"} (one of \#(PaymentMethod.names))"#)
            // The payer's address, as WeChat Pay's H5 checks it: given, or where this request came from.
            if body.client_ip == nil { body.client_ip = ledger.configuration.trustedProxies.clientAddress(of: request) }
            let started = try await ledger.payments.start(context.parameters["id"], body, by: context.caller)
            return .json(started.json, status: started.pending ? 202 : 200)
        }
        payer.post("/v1/orders/{id}/payments/applepay/authorize", name: "authorize_applepay") { request, context in
            guard ledger.configuration.applePay != nil else { throw ApplePayAuthorizer.notConfigured }
            return .json(
                try await ledger.applePay.authorize(context.parameters["id"], try Self.presented(request.body), by: context.caller))
        }
        payer.post("/v1/orders/{id}/payments/applepay/update", name: "update_applepay_sheet") { request, context in
            guard ledger.configuration.applePay != nil else { throw ApplePayAuthorizer.notConfigured }
            let body = try request.decode(
                SheetUpdateBody.self,
                expected: #"{"shipping_method":"express"} or {"shipping_contact":{"countryCode":"US",…}} or {"coupon_code":"WELCOME10"}"#)
            let update = try await ledger.sheets.update(context.parameters["id"], body, by: context.caller)
            return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: update)
        }
        payer.post("/v1/applepay/sessions", name: "applepay_session") { request, _ in
            try await Self.session(request.body, ledger: ledger)
        }
    }

    /// Apple Pay on the web's merchant validation: the page's `onvalidatemerchant` hands the
    /// validation URL here; the server refuses any host that is not Apple's, calls it over mutual
    /// TLS with the merchant identity certificate (which never leaves the server), and returns
    /// Apple's opaque session for `completeMerchantValidation`.
    static func session(_ body: [UInt8], ledger: Ledger) async throws -> HTTPServerResponse {
        guard let validator = ledger.configuration.applePay?.webSession else {
            throw APIError(
                status: 422, code: "invalid_request",
                message: "Apple Pay on the web is not configured: set applepay.web (domain, identity_certificate_file, identity_key_file)")
        }
        let request = try RequestProblem.decode(
            SessionBody.self, from: body,
            expected: #"{"validation_url":"https://apple-pay-gateway.apple.com/paymentservices/startSession"}"#)
        guard let url = URL(string: request.validation_url) else { throw RequestProblem("validation_url is not a URL") }
        let session = try await validator.merchantSession(validationURL: url)
        return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(session))
    }

    /// The token and contacts an authorisation request carries. Only an object is a token
    /// (Foundation's writer traps on a bare string or number: a schema-driven fuzzer's first find).
    static func presented(_ raw: [UInt8]) throws -> ApplePayAuthorizer.Presented {
        let expected = #"{"token": <the PKPayment or its token as JSON>}"#
        _ = try RequestProblem.decode(ApplePayAuthorizeBody.self, from: raw, expected: expected)
        guard let body = (try? JSONSerialization.jsonObject(with: Data(raw))) as? [String: Any],
            let token = body["token"] as? [String: Any], let tokenJSON = try? JSONSerialization.data(withJSONObject: token)
        else {
            throw RequestProblem("expected \(expected)")
        }
        // Contacts come beside the token (Apple Pay JS's ApplePayPayment) or in the body.
        let contacts = PaymentContacts(
            billing: PaymentContact(json: body["billing_contact"] ?? token["billingContact"]),
            shipping: PaymentContact(json: body["shipping_contact"] ?? token["shippingContact"]))
        return ApplePayAuthorizer.Presented(token: tokenJSON, contacts: contacts, clientSecret: body["client_secret"] as? String)
    }
}

import ApplePay
import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// Apple Pay: the payment request for the sheet; the token is authorised by the merchant's
/// processor (``MerchantAPI/authorizeApplePay(_:id:)``), which also takes refunds and keeps the
/// bill — so there is nothing here to query, close or notify.
struct ApplePayAdapter: PaymentAdapter {
    let provider = PaymentProvider.applePay
    let methods: Set<PaymentMethod> = [.applePay]
    /// The processor decides.
    let currencies: Set<Currency>? = nil
    let configuration: MerchantConfiguration.ApplePay

    var canRefund: Bool { false }

    func prepare(_ request: PaymentRequestBody, method: PaymentMethod) async throws -> PreparedAttempt {
        PreparedAttempt(appID: configuration.merchantIdentifier, merchantID: nil, payer: nil)
    }

    func place(_ payment: StoredPayment, order: StoredOrder, request: PaymentRequestBody) async throws -> [String: Any] {
        let paymentRequest = try ApplePay.PaymentRequest(
            merchantIdentifier: configuration.merchantIdentifier, countryCode: configuration.countryCode,
            items: [try LineItem(label: order.description, unitAmount: payment.amount)], totalLabel: configuration.displayName,
            supportedNetworks: configuration.supportedNetworks,
            merchantCapabilities: configuration.countryCode.alpha2 == "CN" || configuration.supportedNetworks.contains(.chinaUnionPay)
                ? [.supports3DS, .supportsEMV] : [.supports3DS],
            applicationData: Array(order.id.utf8))
        return ["payment_request": try paymentRequest.jsonObject()]
    }

    func query(_ payment: StoredPayment) async throws -> ProviderPaymentState { .unknown }

    func close(_ payment: StoredPayment) async throws -> ProviderCloseResult { .closed }

    func refund(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState {
        throw PaymentError(.invalidRequest, provider: .applePay, "refund Apple Pay payments through your payment processor")
    }

    func refundState(_ refund: StoredRefund, of payment: StoredPayment) async throws -> ProviderRefundState { .notFound }

    func billEntries(date: String) async throws -> [BillEntry]? { nil }

    func notification(_ request: HTTPServerRequest) throws -> ProviderNotification {
        throw PaymentError(.invalidRequest, provider: .applePay, "Apple Pay sends no notifications")
    }

    func reply(to outcome: NotificationOutcome) -> HTTPServerResponse {
        .error(status: 404, code: "not_found", message: "Apple Pay sends no notifications")
    }
}

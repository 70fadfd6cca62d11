import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// `/v1/test_helpers/…`, only in sandbox mode: what a payer does, for tools that drive the API alone.
extension MerchantAPI {
    /// `POST /v1/test_helpers/orders/{id}/pay`: the order's newest open WeChat Pay or Alipay
    /// attempt is paid in the sandbox, which notifies this server as the provider would; answers
    /// the order once that notification is recorded (up to 10 s).
    func sandboxPay(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard await caller(request) == .secret else { return Self.unauthorized }
        guard let sandboxPayer else { return .error(status: 404, code: "not_found", message: "no test helpers outside sandbox mode") }
        do {
            guard try await store.order(id: id) != nil else { return .error(status: 404, code: "not_found", message: "no order \(id)") }
            let open = try await store.payments(orderID: id).filter {
                $0.status == .pending && $0.provider != .applePay
            }.max { $0.createdAt < $1.createdAt }
            guard let payment = open else {
                return .error(
                    status: 409, code: "invalid_state",
                    message: "order \(id) has no open WeChat Pay or Alipay payment: start one (POST /v1/orders/\(id)/payments) first")
            }
            guard try await sandboxPayer.pay(provider: payment.provider, outTradeNo: payment.outTradeNo) else {
                return .error(status: 409, code: "invalid_state", message: "the sandbox has no open attempt \(payment.outTradeNo)")
            }
            for _ in 0..<200 {
                if let order = try await store.order(id: id), order.status.hasReceivedMoney {
                    return .json(try await orderJSON(order, includeSecret: true))
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return .error(
                status: 409, code: "invalid_state", message: "the sandbox paid \(payment.outTradeNo), but no notification arrived")
        } catch {
            return Self.failure(error)
        }
    }
}

import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation
import WeChatPay

/// Refunds, closing (by request and by the expiry job), and the event log — secret key only.
extension MerchantAPI {

    /// The order's last started payment, from the event log: its method (`wechat.app`, …), the
    /// WeChat API and appid it used, and when it started.
    struct StartedPayment {
        let method: String
        let api: MerchantConfiguration.WeChatAPI?
        let appID: String?
        let at: Date
        /// `wechat`, `alipay` or `applepay`.
        var provider: String { String(method.prefix { $0 != "." }) }
    }

    func startedPayment(of order: StoredOrder) async throws -> StartedPayment? {
        guard let started = try await store.events(orderID: order.id).last(where: { $0.kind == "payment_started" }),
            let object = (try? JSONSerialization.jsonObject(with: Data(started.detail.utf8))) as? [String: String],
            let method = object["method"]
        else { return nil }
        return StartedPayment(
            method: method, api: object["api"].flatMap(MerchantConfiguration.WeChatAPI.init(rawValue:)), appID: object["appid"],
            at: started.createdAt)
    }

    struct RefundBody: Decodable {
        let amount: String?
        let amount_minor: Int64?
        let reason: String?
    }

    /// `POST /v1/orders/{id}/refunds`: refunds at the provider, then records it; never more than was paid.
    func refund(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        // A retried refund with its Idempotency-Key answers as the first did and refunds nothing more.
        return await idempotent(request, scope: "refund:\(id):") { await self.performRefund(request, id: id) }
    }

    private func performRefund(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard let body = try? request.decodeJSON(RefundBody.self) else {
            return .error(
                status: 400, code: "invalid_request",
                message: #"expected {"amount":"1.00"} or {"amount_minor":100}, and an optional reason"#)
        }
        do {
            guard let order = try await store.order(id: id) else {
                return .error(status: 404, code: "not_found", message: "no order \(id)")
            }
            // With an Idempotency-Key the provider's refund number comes from it: a retry after a
            // crash asks the provider for the same refund (which it does not repeat), and finds it
            // here if it was already recorded.
            let keyedRequestNo = request.headers["Idempotency-Key"].map {
                "R" + Hex.encode(DigestAlgorithm.sha256.hash(id + "\n" + $0)).prefix(30)
            }
            if let keyedRequestNo,
                try await store.events(orderID: id).contains(where: { $0.kind == "refund" && $0.detail.contains("\"\(keyedRequestNo)\"") })
            {
                return .json(OrderJSON(order, includeSecret: true))
            }
            let amount: Money
            switch (body.amount, body.amount_minor) {
            case (let text?, nil):
                guard let parsed = try? Money(decimal: text, currency: order.total.currency) else {
                    return .error(
                        status: 400, code: "invalid_request",
                        message: "amount '\(text)' is not a decimal amount in \(order.total.currency.code)")
                }
                amount = parsed
            case (nil, let minor?): amount = Money(minorUnits: minor, currency: order.total.currency)
            case (nil, nil): amount = Money(minorUnits: order.total.minorUnits - order.refunded.minorUnits, currency: order.total.currency)
            default: return .error(status: 400, code: "invalid_request", message: "give amount or amount_minor, not both")
            }
            guard order.status.hasReceivedMoney else {
                return .error(
                    status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue): nothing was paid to refund")
            }
            let refunded = Money(minorUnits: order.refunded.minorUnits + amount.minorUnits, currency: order.total.currency)
            guard amount.isPositive, refunded.minorUnits <= order.total.minorUnits else {
                return .error(
                    status: 400, code: "refund_too_large",
                    message: "a refund of \(amount) would bring refunds to \(refunded), more than the \(order.total) paid")
            }
            let requestNo = keyedRequestNo ?? "R\(order.outTradeNo.suffix(20))\(refunded.minorUnits)"
            let started = try await startedPayment(of: order)
            switch started?.provider {
            case "wechat" where started != nil:
                try await wechatRefund(order, started.unsafelyUnwrapped, requestNo: requestNo, amount: amount, reason: body.reason)
            case "alipay":
                _ = try await alipayClient().refund(
                    outTradeNo: order.outTradeNo, amount: amount, outRequestNo: requestNo, reason: body.reason)
            default:
                return .error(status: 409, code: "unsupported", message: "refund Apple Pay payments through your payment processor")
            }
            let event: PaymentEvent = refunded.minorUnits == order.total.minorUnits ? .refunded : .partiallyRefunded
            let outcome = try await move(
                event, to: id, refunded: refunded,
                record: EventRecord(kind: "refund", detail: Self.detail(["amount": amount.decimalString, "request_no": requestNo])),
                now: Date())
            switch outcome {
            case .applied(let updated, _), .unchanged(let updated): return .json(OrderJSON(updated, includeSecret: true))
            }
        } catch {
            return Self.failure(error)
        }
    }

    /// `POST /v1/orders/{id}/close`: closes an unpaid order at its provider, then here.
    func close(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        do {
            guard let order = try await store.order(id: id) else {
                return .error(status: 404, code: "not_found", message: "no order \(id)")
            }
            guard order.status == .created || order.status == .pending || order.status == .failed else {
                return .error(status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue) and cannot be closed")
            }
            return .json(OrderJSON(try await closeOrder(order, kind: "close"), includeSecret: true))
        } catch {
            return Self.failure(error)
        }
    }

    /// Closes an unpaid order at its provider (so it can no longer be paid there), then here.
    /// Used by `POST …/close` and by the expiry job.
    func closeOrder(_ order: StoredOrder, kind: String) async throws -> StoredOrder {
        let started = try await startedPayment(of: order)
        switch started?.provider {
        case "wechat":
            try await wechatClose(order, started!)
        case "alipay":
            do {
                try await alipayClient().close(outTradeNo: order.outTradeNo)
            } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_NOT_EXIST" {
                // An app-pay order the payer never opened does not exist at Alipay: nothing to close there.
            }
        default: break
        }
        switch try await move(.closed, to: order.id, refunded: nil, record: EventRecord(kind: kind), now: Date()) {
        case .applied(let updated, _), .unchanged(let updated): return updated
        }
    }

    /// The expiry job: closes orders past their expiry that were never paid. - Returns: how many.
    @discardableResult
    func closeExpired(now: Date = Date(), limit: Int = 50) async throws -> Int {
        var closed = 0
        for order in try await store.unpaidOrders(expiringBefore: now, limit: limit) {
            // A payment may land meanwhile: the compare-and-set then refuses the close, and that is right.
            if (try? await closeOrder(order, kind: "expired")) != nil { closed += 1 }
        }
        return closed
    }

    struct EventJSON: Encodable {
        let sequence: Int64
        let kind: String
        let from: String?
        let to: String?
        let detail: String
        let body_sha256: String?
        let created: Int64
    }

    func events(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        do {
            guard try await store.order(id: id) != nil else { return .error(status: 404, code: "not_found", message: "no order \(id)") }
            let events = try await store.events(orderID: id).map {
                EventJSON(
                    sequence: $0.sequence, kind: $0.kind, from: $0.from?.rawValue, to: $0.to?.rawValue, detail: $0.detail,
                    body_sha256: $0.bodySHA256,
                    created: Int64($0.createdAt.timeIntervalSince1970))
            }
            return .json(["data": events])
        } catch {
            return Self.failure(error)
        }
    }
}

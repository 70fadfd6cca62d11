import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation
import WeChatPay

/// The providers' notify endpoints: verified, checked against the order, applied once, logged.
extension MerchantAPI {

    enum NotificationOutcome {
        /// Recorded (a change, a duplicate or a non-payment status): tell the provider it arrived.
        case acknowledged
        /// Refused and logged (another amount, an unknown order): the provider should not count it.
        case refused
        /// Not recorded (storage failed): the provider must retry.
        case retry
    }

    /// What every provider's notification shares once its signature is verified: find the order,
    /// run the provider's checks against it, move it once (or log the duplicate), log every
    /// refusal with the body's hash — all before the provider hears back.
    func record(
        outTradeNo: String, paid: Bool, fields: [String: String], body: [UInt8], check: (StoredOrder) throws -> Void
    ) async -> NotificationOutcome {
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(body))
        let detail = Self.detail(fields)
        do {
            guard let order = try await store.order(outTradeNo: outTradeNo) else { return .refused }
            do {
                try check(order)
            } catch let error as PaymentError {
                try await store.append(
                    EventRecord(kind: "notification_refused", detail: Self.detail(["reason": error.message]), bodySHA256: bodyHash),
                    to: order.id, now: Date())
                return .refused
            }
            guard paid else {
                try await store.append(EventRecord(kind: "notification", detail: detail, bodySHA256: bodyHash), to: order.id, now: Date())
                return .acknowledged
            }
            // The transition, or the duplicate's log line: one transaction either way.
            try await move(
                .paymentSucceeded, to: order.id, refunded: nil,
                record: EventRecord(kind: "notification", detail: detail, bodySHA256: bodyHash),
                duplicate: EventRecord(kind: "notification_duplicate", detail: detail, bodySHA256: bodyHash), now: Date())
            return .acknowledged  // only now: the change (or the duplicate) is on disk
        } catch {
            return .retry
        }
    }

    /// The XML WeChat waits for after a notification.
    static func wechatReply(_ answer: WeChatPay.V2.NotificationReply) -> HTTPServerResponse {
        .text(answer.xmlString, contentType: "application/xml; charset=utf-8")
    }

    func wechatNotification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let reply = Self.wechatReply
        // The app's appid, or the mini program's: the same merchant key signs both.
        guard let notification = try? WeChatPay.V2.PaymentNotification.verify(request.body, merchants: wechatV2Merchants) else {
            metrics.increment("cashier_notifications_total", ["provider": "wechat", "outcome": "unverified"])
            return reply(.failure("signature or merchant check failed"))  // nothing is touched
        }
        let fields = [
            "transaction_id": notification.transactionID, "total_fee": String(notification.amount.minorUnits),
            "currency": notification.amount.currency.code,
        ]
        let outcome = await record(
            outTradeNo: notification.outTradeNo, paid: notification.isSuccess, fields: fields, body: request.body,
            check: { try notification.check(amount: $0.total) })
        metrics.increment("cashier_notifications_total", ["provider": "wechat", "outcome": "\(outcome)"])
        switch outcome {
        case .acknowledged: return reply(.success)
        case .refused: return reply(.failure("refused: unknown order or another amount"))
        case .retry: return reply(.failure("temporarily unavailable"))
        }
    }

    /// WeChat's refund result (`req_info` decrypted with the API key): logged against the order;
    /// a refund WeChat could not complete (`CHANGE`, `REFUNDCLOSE`) is logged as such for follow-up.
    func wechatRefundNotification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let reply = Self.wechatReply
        guard let wechat = configuration.wechat,
            let notification = try? WeChatPay.V2.RefundNotification.verify(request.body, merchant: wechat.merchant)
        else {
            metrics.increment("cashier_notifications_total", ["provider": "wechat_refund", "outcome": "unverified"])
            return reply(.failure("req_info does not decrypt with this merchant's key"))
        }
        do {
            guard let order = try await store.order(outTradeNo: notification.outTradeNo) else {
                return reply(.failure("unknown out_trade_no"))
            }
            let kind = notification.refundStatus == "SUCCESS" ? "refund_notification" : "refund_failed"
            try await store.append(
                EventRecord(
                    kind: kind,
                    detail: Self.detail([
                        "out_refund_no": notification.outRefundNo, "refund_id": notification.refundID,
                        "refund_status": notification.refundStatus,
                        "refund_fee": notification.refundAmount.decimalString,
                    ]), bodySHA256: Hex.encode(DigestAlgorithm.sha256.hash(request.body))), to: order.id, now: Date())
            metrics.increment("cashier_notifications_total", ["provider": "wechat_refund", "outcome": "acknowledged"])
            return reply(.success)
        } catch {
            return reply(.failure("temporarily unavailable"))
        }
    }

    /// API v3: the signature over the raw body first (platform key by `Wechatpay-Serial`, timestamp
    /// within five minutes), then the resource decrypted with the APIv3 key, then the order checks.
    /// WeChat counts 2xx as received and retries anything else.
    func wechatV3Notification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        func refuse(_ status: Int, _ message: String) -> HTTPServerResponse {
            .json(["code": "FAIL", "message": message], status: status)
        }
        let acknowledge = HTTPServerResponse(status: 204, headers: [:], body: [])
        guard let v3 = configuration.wechatV3,
            let headers = try? WeChatPay.V3.SignatureHeaders(headers: request.headers),
            let notification = try? WeChatPay.V3.Notification.open(
                body: request.body, headers: headers, keys: v3.platformKeys, apiV3Key: v3.merchant.apiV3Key)
        else {
            metrics.increment("cashier_notifications_total", ["provider": "wechat_v3", "outcome": "unverified"])
            return refuse(401, "signature verification failed")
        }
        if notification.originalType == "refund" || notification.eventType.hasPrefix("REFUND.") {
            return await wechatV3RefundNotification(notification, body: request.body, refuse: refuse)
        }
        guard let transaction = try? WeChatPay.V3.Transaction.decode(notification.plaintext) else {
            metrics.increment("cashier_notifications_total", ["provider": "wechat_v3", "outcome": "refused"])
            return refuse(400, "the resource is not a transaction")
        }
        let fields = [
            "notification_id": notification.id, "event_type": notification.eventType, "transaction_id": transaction.transactionID ?? "",
            "trade_state": transaction.tradeState, "total": String(transaction.amount.minorUnits),
            "currency": transaction.amount.currency.code,
        ]
        let appIDs = wechatAppIDs
        let outcome = await record(
            outTradeNo: transaction.outTradeNo, paid: transaction.tradeState == "SUCCESS", fields: fields, body: request.body,
            check: { order in
                guard transaction.mchID == v3.merchant.mchID, appIDs.contains(transaction.appID) else {
                    throw PaymentError(.merchantMismatch, provider: .wechatV3, "mchid or appid is not this merchant's")
                }
                guard transaction.amount == order.total else {
                    throw PaymentError(
                        .amountMismatch, provider: .wechatV3,
                        "the notification is for \(transaction.amount), the order is for \(order.total)")
                }
            })
        metrics.increment("cashier_notifications_total", ["provider": "wechat_v3", "outcome": "\(outcome)"])
        switch outcome {
        case .acknowledged: return acknowledge
        case .refused: return refuse(400, "refused: unknown order, another merchant or another amount")
        case .retry: return refuse(500, "temporarily unavailable")
        }
    }

    private func wechatV3RefundNotification(
        _ notification: WeChatPay.V3.Notification, body: [UInt8], refuse: (Int, String) -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        guard let resource = (try? JSONSerialization.jsonObject(with: Data(notification.plaintext))) as? [String: Any],
            let outTradeNo = resource["out_trade_no"] as? String
        else { return refuse(400, "the resource is not a refund") }
        do {
            guard let order = try await store.order(outTradeNo: outTradeNo) else { return refuse(400, "unknown out_trade_no") }
            let status = resource["refund_status"] as? String ?? ""
            let refund = ((resource["amount"] as? [String: Any])?["refund"] as? NSNumber)?.int64Value ?? 0
            try await store.append(
                EventRecord(
                    kind: status == "SUCCESS" ? "refund_notification" : "refund_failed",
                    detail: Self.detail([
                        "out_refund_no": resource["out_refund_no"] as? String ?? "", "refund_id": resource["refund_id"] as? String ?? "",
                        "refund_status": status, "refund": Money(minorUnits: refund, currency: order.total.currency).decimalString,
                    ]), bodySHA256: Hex.encode(DigestAlgorithm.sha256.hash(body))), to: order.id, now: Date())
            metrics.increment("cashier_notifications_total", ["provider": "wechat_v3_refund", "outcome": "acknowledged"])
            return HTTPServerResponse(status: 204, headers: [:], body: [])
        } catch {
            return refuse(500, "temporarily unavailable")
        }
    }

    func alipayNotification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let alipay = configuration.alipay,
            let notification = try? Alipay.Notification.verify(
                request.body, publicKey: alipay.alipayPublicKey, appID: alipay.appID, sellerID: alipay.sellerID)
        else {
            metrics.increment("cashier_notifications_total", ["provider": "alipay", "outcome": "unverified"])
            return .text("failure")
        }
        let fields = [
            "trade_no": notification.tradeNo, "trade_status": notification.tradeStatus,
            "total_amount": notification.totalAmount.decimalString,
        ]
        let outcome = await record(
            outTradeNo: notification.outTradeNo, paid: notification.isPaid, fields: fields, body: request.body,
            check: { try notification.check(outTradeNo: $0.outTradeNo, amount: $0.total) })
        metrics.increment("cashier_notifications_total", ["provider": "alipay", "outcome": "\(outcome)"])
        return .text(outcome == .acknowledged ? Alipay.Notification.successReply : "failure")
    }
}

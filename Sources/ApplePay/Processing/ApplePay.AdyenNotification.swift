import Cashier
import CashierCrypto
public import Foundation

extension ApplePay {
    /// One item of an Adyen standard webhook (`{"live": …, "notificationItems": [{"NotificationRequestItem": …}]}`),
    /// verified by its HMAC signature before anything reads it.
    ///
    /// The signature (`additionalData.hmacSignature`) is HMAC-SHA256, keyed with the hex HMAC key
    /// the Customer Area shows for the webhook, over `pspReference:originalReference:
    /// merchantAccountCode:merchantReference:value:currency:eventCode:success` (an absent field is
    /// empty), in base64. Adyen answers a modification (`/refunds`, `/captures`, `/cancels`) with
    /// `received`; its webhook (`REFUND`, `CAPTURE`, `CANCELLATION` with `success`, and later
    /// `REFUND_FAILED` or `REFUNDED_REVERSED`) is the final word.
    public struct AdyenNotification: Sendable, Equatable {
        /// `AUTHORISATION`, `REFUND`, `REFUND_FAILED`, `REFUNDED_REVERSED`, `CAPTURE`, `CANCELLATION`, …
        public var eventCode: String
        /// Whether the event succeeded (`"true"` on the wire).
        public var success: Bool
        /// The event's own reference (a refund's modification reference, a payment's PSP reference).
        public var pspReference: String
        /// For a modification, the payment's PSP reference.
        public var originalReference: String?
        public var merchantAccountCode: String
        /// The `reference` sent with the payment or modification.
        public var merchantReference: String
        /// Minor units and currency code as Adyen sent them (absent on some events).
        public var value: Int64?
        public var currency: String?
        /// Adyen's words on a failure.
        public var reason: String?
        /// A dispute's `additionalData.defensePeriodEndsAt`: the last moment to defend it. Outside
        /// what the HMAC signs (as all of `additionalData` but the signature): informative only.
        public var defensePeriodEndsAt: Date?

        public init(
            eventCode: String, success: Bool, pspReference: String, originalReference: String? = nil, merchantAccountCode: String,
            merchantReference: String, value: Int64? = nil, currency: String? = nil, reason: String? = nil
        ) {
            self.eventCode = eventCode
            self.success = success
            self.pspReference = pspReference
            self.originalReference = originalReference
            self.merchantAccountCode = merchantAccountCode
            self.merchantReference = merchantReference
            self.value = value
            self.currency = currency
            self.reason = reason
        }

        /// What the signature covers.
        public var signedText: String {
            [
                pspReference, originalReference ?? "", merchantAccountCode, merchantReference, value.map(String.init) ?? "",
                currency ?? "", eventCode, success ? "true" : "false",
            ].joined(separator: ":")
        }

        /// The base64 HMAC-SHA256 of ``signedText`` under `hmacKey` (hex, as the Customer Area shows it).
        public func signature(hmacKey: String) throws -> String {
            Base64.encode(try Self.key(hmacKey).authenticationCode(for: signedText))
        }

        /// The item as Adyen sends it, signed with `hmacKey` (what the sandbox posts).
        public func jsonObject(hmacKey: String) throws -> [String: Any] {
            var item: [String: Any] = [
                "eventCode": eventCode, "success": success ? "true" : "false", "pspReference": pspReference,
                "merchantAccountCode": merchantAccountCode, "merchantReference": merchantReference,
                "eventDate": ISO8601DateFormatter().string(from: Date()),
                "additionalData": ["hmacSignature": try signature(hmacKey: hmacKey)],
            ]
            if let originalReference { item["originalReference"] = originalReference }
            if let value, let currency { item["amount"] = ["value": value, "currency": currency] }
            if let reason { item["reason"] = reason }
            if let defensePeriodEndsAt {
                var additional = item["additionalData"] as? [String: Any] ?? [:]
                additional["defensePeriodEndsAt"] = ISO8601DateFormatter().string(from: defensePeriodEndsAt)
                item["additionalData"] = additional
            }
            return ["NotificationRequestItem": item]
        }

        /// Every item of a webhook body, each verified. A body that is not Adyen's shape, or any item
        /// whose signature does not verify under `hmacKey`, throws and nothing is returned.
        public static func items(in body: Data, hmacKey: String) throws -> [AdyenNotification] {
            let key = try Self.key(hmacKey)
            guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
                let wrapped = object["notificationItems"] as? [Any]
            else {
                throw PaymentError(.malformedMessage, provider: .applePay, "an Adyen webhook is a JSON object with notificationItems")
            }
            return try wrapped.enumerated().map { index, element in
                guard let item = (element as? [String: Any])?["NotificationRequestItem"] as? [String: Any] else {
                    throw PaymentError(.malformedMessage, provider: .applePay, "notificationItems[\(index)] has no NotificationRequestItem")
                }
                let notification = try AdyenNotification(item: item, index: index)
                let given = ((item["additionalData"] as? [String: Any])?["hmacSignature"] as? String) ?? ""
                guard let code = try? Base64.decodeBytes(given),
                    key.isValidAuthenticationCode(code, for: Array(notification.signedText.utf8))
                else {
                    throw PaymentError(
                        .signatureMismatch, provider: .applePay,
                        "notificationItems[\(index)]: the HMAC signature does not verify under the configured HMAC key")
                }
                return notification
            }
        }

        private init(item: [String: Any], index: Int) throws {
            func text(_ name: String) -> String? {
                switch item[name] {
                case let string as String: string
                case let number as NSNumber: number.stringValue
                default: nil
                }
            }
            guard let eventCode = text("eventCode"), let psp = text("pspReference"), let success = text("success"),
                success == "true" || success == "false"
            else {
                throw PaymentError(
                    .malformedMessage, provider: .applePay, "notificationItems[\(index)] lacks eventCode, pspReference or success")
            }
            let amount = item["amount"] as? [String: Any]
            var value: Int64?
            if let given = amount?["value"] {
                guard let number = given as? NSNumber, let exact = Int64(exactly: number.doubleValue) else {
                    throw PaymentError(
                        .malformedMessage, provider: .applePay, "notificationItems[\(index)]: amount.value is not minor units")
                }
                value = exact
            }
            self.init(
                eventCode: eventCode, success: success == "true", pspReference: psp, originalReference: text("originalReference"),
                merchantAccountCode: text("merchantAccountCode") ?? "", merchantReference: text("merchantReference") ?? "",
                value: value, currency: amount?["currency"] as? String, reason: text("reason"))
            defensePeriodEndsAt = ((item["additionalData"] as? [String: Any])?["defensePeriodEndsAt"] as? String).flatMap {
                ISO8601DateFormatter().date(from: $0)
            }
        }

        /// Throws unless `hmacKey` is a usable HMAC key (non-empty hex).
        public static func checkKey(_ hmacKey: String) throws {
            _ = try key(hmacKey)
        }

        private static func key(_ hmacKey: String) throws -> HMACKey {
            guard let bytes = try? Hex.decode(hmacKey), !bytes.isEmpty else {
                throw PaymentError(
                    .invalidConfiguration, provider: .applePay,
                    "the Adyen HMAC key is hex (Customer Area → Developers → Webhooks → the webhook → HMAC key)")
            }
            return HMACKey(key: bytes)
        }
    }
}

import Cashier
public import Foundation

extension WeChatPay.V3 {
    /// A verified, decrypted v3 notification.
    ///
    /// ``open(body:headers:keys:apiV3Key:now:)`` is the only way to get one: the signature is
    /// checked over the raw body first, and only then is the body parsed and the resource
    /// decrypted. There is no API that decrypts without verifying.
    ///
    /// ```swift
    /// let notification = try WeChatPay.V3.Notification.open(body: body, headers: SignatureHeaders(headers: request.headers),
    ///                                                       keys: platformKeys, apiV3Key: merchant.apiV3Key)
    /// let transaction = try JSONDecoder().decode(Transaction.self, from: Data(notification.plaintext))
    /// ```
    public struct Notification: Sendable {
        /// The notification id (dedupe on it).
        public let id: String
        /// e.g. `TRANSACTION.SUCCESS`, `REFUND.SUCCESS`.
        public let eventType: String
        /// `encrypt-resource`.
        public let resourceType: String
        /// WeChat's one-line summary.
        public let summary: String?
        /// When WeChat created it.
        public let createTime: String?
        /// The resource's `original_type` (`transaction`, `refund`, …).
        public let originalType: String?
        /// The decrypted resource, a JSON document.
        public let plaintext: [UInt8]

        private struct Envelope: Decodable {
            let id: String
            let create_time: String?
            let event_type: String
            let resource_type: String
            let summary: String?
            let resource: EncryptedResource
        }

        /// Verifies, parses and decrypts a notification.
        /// - Throws: `PaymentError` — `.replayed`, `.unknownKey`, `.signatureMismatch`,
        ///   `.malformedMessage`, `.decryptionFailure`.
        public static func open(
            body: [UInt8],
            headers: SignatureHeaders,
            keys: PlatformKeys,
            apiV3Key: String,
            now: Date = Date()
        ) throws -> Notification {
            guard body.count <= 64 * 1024 else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the body is over the 64 KiB limit")
            }
            try headers.verify(body: body, keys: keys, now: now)
            let envelope: Envelope
            do {
                envelope = try JSONDecoder().decode(Envelope.self, from: Data(body))
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "the notification is not the expected JSON")
            }
            return Notification(
                id: envelope.id, eventType: envelope.event_type, resourceType: envelope.resource_type, summary: envelope.summary,
                createTime: envelope.create_time, originalType: envelope.resource.originalType,
                plaintext: try envelope.resource.decrypt(apiV3Key: apiV3Key))
        }
    }
}

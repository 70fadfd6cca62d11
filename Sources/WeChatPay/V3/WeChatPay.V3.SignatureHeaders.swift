public import Cashier
import CashierCrypto
public import Foundation

extension WeChatPay.V3 {
    /// The `Wechatpay-*` headers of a response or notification, and their verification.
    ///
    /// The signed message is `TIMESTAMP\nNONCE\nBODY\n`. A message is accepted only when its
    /// timestamp is within `window` of `now` (5 minutes by default, against replay), its serial
    /// names a known key, and the SHA256withRSA signature verifies over the exact body bytes.
    public struct SignatureHeaders: Hashable, Sendable {
        public let timestamp: String
        public let nonce: String
        public let signature: String
        public let serial: String
        public let signatureType: String?

        /// The replay window WeChat's SDKs use.
        public static let defaultWindow: TimeInterval = 300

        public init(timestamp: String, nonce: String, signature: String, serial: String, signatureType: String? = nil) {
            self.timestamp = timestamp
            self.nonce = nonce
            self.signature = signature
            self.serial = serial
            self.signatureType = signatureType
        }

        /// Reads `Wechatpay-Timestamp`, `-Nonce`, `-Signature`, `-Serial` and `-Signature-Type`.
        /// - Throws: `PaymentError.malformedMessage` naming a missing header.
        public init(headers: HTTPHeaders) throws {
            func required(_ name: String) throws -> String {
                guard let value = headers[name], !value.isEmpty else {
                    throw PaymentError(.malformedMessage, provider: .wechatV3, "the \(name) header is missing")
                }
                return value
            }
            try self.init(
                timestamp: required("Wechatpay-Timestamp"), nonce: required("Wechatpay-Nonce"), signature: required("Wechatpay-Signature"),
                serial: required("Wechatpay-Serial"), signatureType: headers["Wechatpay-Signature-Type"])
        }

        /// Verifies `body` against these headers.
        /// - Throws: `PaymentError` `.replayed`, `.unknownKey`, `.signatureMismatch` or `.malformedMessage`.
        public func verify(body: some ContiguousBytes, keys: PlatformKeys, now: Date = Date(), window: TimeInterval = defaultWindow) throws
        {
            if let signatureType, signatureType != "WECHATPAY2-SHA256-RSA2048" {
                throw PaymentError(
                    .signatureMismatch, provider: .wechatV3, "unsupported Wechatpay-Signature-Type \(signatureType.prefix(40))")
            }
            guard timestamp.utf8.count <= 12, timestamp.utf8.allSatisfy({ (48...57).contains($0) }), let seconds = Int64(timestamp) else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "Wechatpay-Timestamp is not a number of seconds")
            }
            let skew = abs(now.timeIntervalSince1970 - TimeInterval(seconds))
            guard skew <= window else {
                throw PaymentError(
                    .replayed, provider: .wechatV3,
                    "Wechatpay-Timestamp is \(Int(skew)) s away from now, outside the \(Int(window)) s window (replayed or clock skew)")
            }
            guard let key = keys.key(serial: serial, at: now) else {
                throw PaymentError(
                    .unknownKey, provider: .wechatV3,
                    "no platform certificate or public key with serial \(serial.prefix(64)); refresh the platform certificates")
            }
            guard let signatureBytes = try? Base64.decode(signature) else {
                throw PaymentError(.signatureMismatch, provider: .wechatV3, "Wechatpay-Signature is not base64")
            }
            var message = Array("\(timestamp)\n\(nonce)\n".utf8)
            body.withUnsafeBytes { message += $0 }
            message.append(UInt8(ascii: "\n"))
            guard key.isValidSignature(signatureBytes, for: message, scheme: .insecurePKCS1v1_5SHA256) else {
                throw PaymentError(
                    .signatureMismatch, provider: .wechatV3, "the signature does not verify with the key \(serial.prefix(64))")
            }
        }
    }
}

import Cashier
import CashierCrypto
public import Foundation

extension ApplePay {
    /// A payment token's `paymentData` (and, from a whole `PKPayment`, the method and transaction id).
    ///
    /// ```swift
    /// let token = try ApplePay.PaymentToken(json: body)   // PKPayment JSON or bare paymentData
    /// ```
    public struct PaymentToken: Sendable, Codable, Equatable {
        /// `EC_v1` or `RSA_v1`.
        public enum Version: String, Sendable, Codable {
            case ecV1 = "EC_v1"
            case rsaV1 = "RSA_v1"
        }

        public struct Header: Sendable, Codable, Equatable {
            /// EC_v1: the ephemeral P-256 key, base64 SubjectPublicKeyInfo.
            public var ephemeralPublicKey: String?
            /// RSA_v1: the symmetric key wrapped with RSA-OAEP-SHA256, base64.
            public var wrappedKey: String?
            /// SHA-256 of the merchant certificate's SubjectPublicKeyInfo, base64.
            public var publicKeyHash: String
            /// Hex.
            public var transactionId: String
            /// SHA-256 of the request's applicationData, hex, when the request had one.
            public var applicationData: String?

            public init(
                ephemeralPublicKey: String? = nil, wrappedKey: String? = nil, publicKeyHash: String, transactionId: String,
                applicationData: String? = nil
            ) {
                self.ephemeralPublicKey = ephemeralPublicKey
                self.wrappedKey = wrappedKey
                self.publicKeyHash = publicKeyHash
                self.transactionId = transactionId
                self.applicationData = applicationData
            }
        }

        public var version: Version
        /// The encrypted payment data, base64 (ciphertext ‖ 16-byte tag).
        public var data: String
        /// The detached CMS signature, base64.
        public var signature: String
        public var header: Header
        /// From a `PKPayment`: `paymentMethod.network` (e.g. `Visa`), when present.
        public var network: String?
        /// From a `PKPayment`: `transactionIdentifier`, when present.
        public var transactionIdentifier: String?
        /// From a `PKPayment`: `paymentMethod.displayName` (e.g. `Visa 1234`), when present.
        public var displayName: String?
        /// From a `PKPayment`: `paymentMethod.type` (`debit`, `credit`, `prepaid`, `store`), when present.
        public var methodType: String?

        enum CodingKeys: String, CodingKey { case version, data, signature, header }

        public init(version: Version, data: String, signature: String, header: Header) {
            self.version = version
            self.data = data
            self.signature = signature
            self.header = header
        }

        /// Reads a `PKPayment` (`{"token":{"paymentData":…}}`, or `{"paymentData":…}` as
        /// `PKPaymentToken`) or a bare `paymentData` object.
        /// - Throws: `PaymentError.malformedMessage` naming what is missing.
        public init(json: Data) throws {
            guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
                throw TokenCheck.format.failure("the token is not a JSON object")
            }
            let tokenObject = object["token"] as? [String: Any] ?? object
            let paymentData: Any? = tokenObject["paymentData"] ?? (object["version"] != nil ? object : nil)
            guard let paymentData, let bytes = try? JSONSerialization.data(withJSONObject: paymentData) else {
                throw TokenCheck.format.failure("no paymentData (expected a PKPayment or its token.paymentData)")
            }
            do {
                self = try JSONDecoder().decode(PaymentToken.self, from: bytes)
            } catch {
                throw TokenCheck.format.failure("paymentData needs version (EC_v1 or RSA_v1), data, signature and header")
            }
            let method = tokenObject["paymentMethod"] as? [String: Any] ?? object["paymentMethod"] as? [String: Any]
            network = method?["network"] as? String
            displayName = method?["displayName"] as? String
            methodType = method?["type"] as? String
            transactionIdentifier = (tokenObject["transactionIdentifier"] ?? object["transactionIdentifier"]) as? String
        }

        /// `paymentData` as JSON (sorted keys): what a processor that holds the processing key takes
        /// (Stripe's `pk_token`, Adyen's `applePayToken` once base64-encoded).
        public func paymentDataJSON() throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(self)
        }

        /// The bytes the signature covers: ephemeral key (or wrapped key) ‖ data ‖ transaction id ‖
        /// applicationData (what a minter signs, what ``TokenVerifier`` checks).
        public func signedContent() throws -> [UInt8] {
            try decoded(signature: false).signedContent
        }

        /// The token's binary fields, decoded once for both verification and decryption.
        struct Decoded {
            /// The ephemeral public key (EC_v1) or the wrapped key (RSA_v1).
            let key: [UInt8]
            let data: [UInt8]
            let signedContent: [UInt8]
            /// Empty unless asked for.
            let signature: [UInt8]
        }

        /// Decodes the fields, in the order a reader would check them.
        /// - Throws: `PaymentError` (format) naming the field that is not base64 or hex.
        func decoded(signature withSignature: Bool = true) throws -> Decoded {
            let encodedKey = version == .ecV1 ? header.ephemeralPublicKey : header.wrappedKey
            guard let encodedKey, let key = try? Base64.decodeBytes(encodedKey) else {
                throw TokenCheck.format.failure(
                    version == .ecV1 ? "header.ephemeralPublicKey is missing or not base64" : "header.wrappedKey is missing or not base64")
            }
            guard let data = try? Base64.decodeBytes(self.data) else { throw TokenCheck.format.failure("data is not base64") }
            guard let transaction = try? Hex.decode(header.transactionId) else {
                throw TokenCheck.format.failure("header.transactionId is not hex")
            }
            var content = key
            content.reserveCapacity(key.count + data.count + transaction.count + 32)
            content += data
            content += transaction
            if let applicationData = header.applicationData {
                guard let bytes = try? Hex.decode(applicationData) else {
                    throw TokenCheck.format.failure("header.applicationData is not hex")
                }
                content += bytes
            }
            var signature: [UInt8] = []
            if withSignature {
                guard let bytes = try? Base64.decodeBytes(self.signature) else {
                    throw TokenCheck.format.failure("signature is not base64")
                }
                signature = bytes
            }
            return Decoded(key: key, data: data, signedContent: content, signature: signature)
        }
    }
}

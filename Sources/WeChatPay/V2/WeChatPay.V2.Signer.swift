import Cashier
import CashierCrypto
import Foundation

extension WeChatPay.V2 {
    /// Signs and verifies v2 parameters with the merchant's API key.
    ///
    /// The rules, exactly: every parameter except `sign`, including unknown extension fields;
    /// empty values skipped; names sorted by ASCII byte order and case-sensitive; joined as
    /// `k=v&k=v`, then `&key=API_KEY` appended; MD5 or HMAC-SHA256 (keyed with the API key),
    /// upper-case hex.
    ///
    /// ```swift
    /// let signer = WeChatPay.V2.Signer(apiKey: "192006250b4c09247ec02edce69f6a2d")
    /// signer.signature(for: ["appid": "wxd930ea5d5a258f4f", "mch_id": "10000100", …], type: .md5)
    /// ```
    public struct Signer: Sendable {
        private let apiKey: [UInt8]
        private let hmac: HMACKey

        /// - Parameter apiKey: the 32-character API key from the merchant platform.
        public init(apiKey: String) {
            self.apiKey = Array(apiKey.utf8)
            self.hmac = HMACKey(key: self.apiKey, digest: .sha256)
        }

        /// The `stringA` of the documentation: the sorted, non-empty parameters without `sign`.
        public static func canonicalString(_ parameters: some Sequence<(key: String, value: String)>) -> String {
            String(decoding: canonicalBytes(parameters), as: UTF8.self)
        }

        /// The signature of `parameters` (any order; `sign` and empty values are ignored).
        public func signature(for parameters: some Sequence<(key: String, value: String)>, type: SignType) -> String {
            sign(parameters, type: type)
        }

        /// The signature of a parsed document's fields, made from its bytes: no field becomes a string.
        func signatureBytes(for document: XMLDocument, type: SignType) -> [UInt8] {
            var message = Self.canonicalBytes(document, reserving: 5 + apiKey.count)
            if !message.isEmpty { message.append(UInt8(ascii: "&")) }
            message += Self.keyPrefix
            message += apiKey
            let digest =
                switch type {
                case .md5: DigestAlgorithm.insecureMD5.hash(message)
                case .hmacSHA256: hmac.authenticationCode(for: message)
                }
            return Hex.encodedBytes(digest, uppercase: true)
        }

        private static let keyPrefix = Array("key=".utf8)

        private func sign(_ parameters: some Sequence<(key: String, value: String)>, type: SignType) -> String {
            String(decoding: signatureBytes(for: Self.document(parameters), type: type), as: UTF8.self)
        }

        private static func document(_ parameters: some Sequence<(key: String, value: String)>) -> XMLDocument {
            XMLDocument(packing: parameters.lazy.map { (name: $0.key, value: $0.value) })
        }

        /// The signature of a dictionary of parameters.
        public func signature(for parameters: [String: String], type: SignType) -> String {
            signature(for: parameters.lazy.map { (key: $0.key, value: $0.value) }, type: type)
        }

        /// `true` when `sign` is the signature of `parameters`, compared in constant time.
        /// Hex case is significant: WeChat signs in upper case.
        public func isValidSignature(_ sign: String, for parameters: some Sequence<(key: String, value: String)>, type: SignType) -> Bool {
            ConstantTime.equals(signature(for: parameters, type: type), sign)
        }

        static func canonicalBytes(_ parameters: some Sequence<(key: String, value: String)>) -> [UInt8] {
            canonicalBytes(document(parameters), reserving: 0)
        }

        private static let signName = Array("sign".utf8)

        /// `k=v&k=v` over the non-empty fields other than `sign`, in byte order of their names.
        /// The one implementation (the notification hot path): the sort compares the document's
        /// own bytes, and each name and value is copied once, into the result.
        /// - Parameter extra: capacity to leave for what the caller appends.
        static func canonicalBytes(_ document: XMLDocument, reserving extra: Int) -> [UInt8] {
            document.storage.withUnsafeBufferPointer { buffer in
                var spans: [XMLDocument.Span] = []
                spans.reserveCapacity(document.spans.count)
                for span in document.spans
                where !span.value.isEmpty && !UnsafeBufferPointer(rebasing: buffer[span.name]).elementsEqual(signName) {
                    spans.append(span)
                }
                // ASCII (byte) order of the names' UTF-8, as WeChat sorts them.
                spans.sort { left, right in
                    UnsafeBufferPointer(rebasing: buffer[left.name]).lexicographicallyPrecedes(
                        UnsafeBufferPointer(rebasing: buffer[right.name]))
                }
                var bytes: [UInt8] = []
                bytes.reserveCapacity(spans.reduce(extra) { $0 + $1.name.count + $1.value.count + 2 })
                for (position, span) in spans.enumerated() {
                    if position > 0 { bytes.append(UInt8(ascii: "&")) }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[span.name]))
                    bytes.append(UInt8(ascii: "="))
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[span.value]))
                }
                return bytes
            }
        }
    }
}

import Cashier
public import CashierCrypto
public import Foundation
import Synchronization

extension UnionPay {
    /// Verifies UnionPay's answers and notifications before anything reads them.
    ///
    /// **5.1.0** messages carry UnionPay's signing certificate (`signPubKeyCert`, PEM). It must be
    /// valid now, chain through the configured middle certificate to the configured root (no
    /// system roots; revocation is not checked, as in UnionPay's SDKs), and belong to UnionPay:
    /// its subject CN split on `@` has `中国银联股份有限公司` third
    /// (`CN=041@Z2024-01-01@中国银联股份有限公司@00000001`). Its key then verifies `signature` over
    /// every other field, `signPubKeyCert` included.
    ///
    /// **5.0.0** messages name their certificate by `certId`: it must be one of
    /// `legacyCertificates` (UnionPay's `acp_prod_verify_sign.cer`), which are trusted as
    /// configured.
    ///
    /// ```swift
    /// let verifier = try UnionPay.Verifier(rootPEM: acpRootCer, middlePEM: acpMiddleCer)
    /// let fields = try verifier.verify(try UnionPay.ResponseBody.parse(body))
    /// ```
    public struct Verifier: Sendable {
        /// Whose certificates are accepted.
        public enum Owner: Sendable, Hashable {
            /// `中国银联股份有限公司` only (production; `ifValidateCNName=true`).
            case unionPay
            /// Also `00040000:SIGN`, the owner UnionPay's own test environment's certificates name
            /// (`ifValidateCNName=false`). Never in production.
            case unionPayOrTestEnvironment
        }

        /// The third `@`-separated part of the CN of UnionPay's signing certificates.
        public static let unionPayCNName = "中国银联股份有限公司"
        /// What UnionPay's test environment's certificates name instead.
        public static let testEnvironmentCNName = "00040000:SIGN"

        public let root: X509Certificate
        public let middle: X509Certificate
        public let owner: Owner
        private let legacy: [String: RSAPublicKey]
        private let now: @Sendable () -> Date
        private let cache = KeyCache()

        /// - Parameters:
        ///   - root: UnionPay's root (`acp_prod_root.cer`; the sandbox's `unionpay_root_cert`).
        ///   - middle: UnionPay's middle certificate (`acp_prod_middle.cer`).
        ///   - owner: whose certificates to accept.
        ///   - legacyCertificates: 5.0.0 verification certificates, found by their serial (`certId`).
        ///   - now: the clock certificates' dates are checked against.
        public init(
            root: X509Certificate, middle: X509Certificate, owner: Owner = .unionPay, legacyCertificates: [X509Certificate] = [],
            now: @escaping @Sendable () -> Date = { Date() }
        ) throws {
            self.root = root
            self.middle = middle
            self.owner = owner
            var legacy: [String: RSAPublicKey] = [:]
            for certificate in legacyCertificates {
                guard let key = try? RSAPublicKey(certificate: certificate) else {
                    throw UnionPay.failure(.invalidConfiguration, "a 5.0.0 verification certificate holds no RSA key")
                }
                legacy[certificate.serialNumberDecimal] = key
            }
            self.legacy = legacy
            self.now = now
        }

        /// The same from PEM text.
        public init(
            rootPEM: String, middlePEM: String, owner: Owner = .unionPay, legacyCertificatesPEM: [String] = [],
            now: @escaping @Sendable () -> Date = { Date() }
        ) throws {
            func certificate(_ pem: String, _ name: String) throws -> X509Certificate {
                guard let certificate = try? X509Certificate(pemRepresentation: pem) else {
                    throw UnionPay.failure(.invalidConfiguration, "the \(name) certificate is not a PEM certificate")
                }
                return certificate
            }
            try self.init(
                root: certificate(rootPEM, "root"), middle: certificate(middlePEM, "middle"), owner: owner,
                legacyCertificates: legacyCertificatesPEM.map { try certificate($0, "5.0.0 verification") }, now: now)
        }

        /// Checks a message's signature and returns its fields.
        /// - Throws: `PaymentError` `.signatureMismatch` (no or a wrong signature, a certificate
        ///   that is expired, does not chain, or is not UnionPay's), `.unknownKey` (a 5.0.0
        ///   `certId` not configured), `.malformedMessage` (no `version`, an unknown one, a
        ///   `signMethod` other than `01`).
        @discardableResult
        public func verify(_ fields: [String: String]) throws -> [String: String] {
            guard let signature = fields["signature"], !signature.isEmpty else {
                throw UnionPay.failure(.signatureMismatch, "the message is not signed", respCode: fields["respCode"])
            }
            guard fields["signMethod"] == "01" else {
                throw UnionPay.failure(
                    .malformedMessage, "signMethod \(fields["signMethod"]?.prefix(4) ?? "(none)") is not 01 (certificate RSA)")
            }
            guard let text = fields["version"], let version = Version(rawValue: text) else {
                throw UnionPay.failure(.malformedMessage, "version \(fields["version"]?.prefix(8) ?? "(none)") is not 5.1.0 or 5.0.0")
            }
            let key: RSAPublicKey
            switch version {
            case .v5_1_0:
                guard let pem = fields["signPubKeyCert"], !pem.isEmpty else {
                    throw UnionPay.failure(.signatureMismatch, "a 5.1.0 message carries no signPubKeyCert")
                }
                key = try signingKey(pem: pem)
            case .v5_0_0:
                guard let certID = fields["certId"], let found = legacy[certID] else {
                    throw UnionPay.failure(
                        .unknownKey,
                        "no 5.0.0 verification certificate has serial \(fields["certId"]?.prefix(24) ?? "(none)"): configure UnionPay's verify_sign certificate"
                    )
                }
                key = found
            }
            guard Signer.isValidSignature(signature, for: fields, publicKey: key, version: version) else {
                throw UnionPay.failure(.signatureMismatch, "the \(version.rawValue) signature does not verify with UnionPay's certificate")
            }
            return fields
        }

        /// The key of a `signPubKeyCert` once it passes every check (its chain is remembered; its
        /// dates are checked each time).
        func signingKey(pem: String) throws -> RSAPublicKey {
            let at = now()
            if let known = cache.lookup(pem) {
                guard known.certificate.isValid(at: at) else { throw expired(known.certificate, at) }
                return known.key
            }
            guard let certificate = try? X509Certificate(pemRepresentation: pem), let key = try? RSAPublicKey(certificate: certificate)
            else { throw UnionPay.failure(.signatureMismatch, "signPubKeyCert is not a PEM certificate with an RSA key") }
            guard certificate.isValid(at: at) else { throw expired(certificate, at) }
            do {
                _ = try CertificateChainVerifier.verify(certificate, intermediates: [middle], trustAnchors: [root], at: at)
            } catch let error as CryptoError {
                throw UnionPay.failure(
                    .signatureMismatch, "signPubKeyCert does not chain to the configured root and middle certificates",
                    details: error.reason)
            }
            let name = Self.ownerName(certificate)
            guard name == Self.unionPayCNName || (owner == .unionPayOrTestEnvironment && name == Self.testEnvironmentCNName) else {
                throw UnionPay.failure(
                    .signatureMismatch, "signPubKeyCert is not UnionPay's (its CN names \(name?.prefix(40) ?? "no owner"))")
            }
            cache.store(pem, certificate, key)
            return key
        }

        private func expired(_ certificate: X509Certificate, _ at: Date) -> PaymentError {
            UnionPay.failure(
                .signatureMismatch, "signPubKeyCert is not valid now (valid \(certificate.notValidBefore) to \(certificate.notValidAfter))")
        }

        /// The owner a UnionPay certificate names: the third `@`-separated part of its subject CN.
        public static func ownerName(_ certificate: X509Certificate) -> String? {
            guard let cn = certificate.subjectComponents.last(where: { $0.shortName == "CN" })?.value else { return nil }
            let parts = cn.split(separator: "@", omittingEmptySubsequences: false)
            return parts.count > 2 ? String(parts[2]) : nil
        }

        /// Certificates that passed, by their PEM text: chain building costs more than the RSA check.
        private final class KeyCache: Sendable {
            private let entries = Mutex<[String: (certificate: X509Certificate, key: RSAPublicKey)]>([:])

            func lookup(_ pem: String) -> (certificate: X509Certificate, key: RSAPublicKey)? {
                entries.withLock { $0[pem] }
            }

            func store(_ pem: String, _ certificate: X509Certificate, _ key: RSAPublicKey) {
                entries.withLock { entries in
                    if entries.count >= 16 { entries.removeAll() }  // UnionPay rotates a certificate a year or so
                    entries[pem] = (certificate, key)
                }
            }
        }
    }
}

import Cashier
public import CashierCrypto
public import Foundation
import Synchronization

extension ApplePay {
    /// Verifies a token before anything decrypts it: the CMS signature over the token's content,
    /// the signer's chain to Apple Root CA - G3, the leaf and intermediate OIDs, the signing time
    /// against an injectable clock, and the applicationData the caller expects.
    ///
    /// Chains are validated once per leaf certificate and cached by the leaf certificate
    /// (bounded; an entry is used only while the clock is inside every certificate's validity),
    /// since verifying the P-384 root signature costs far more than the token's own ECDSA check.
    public final class TokenVerifier: Sendable {
        /// What a verification established.
        public struct Verified: Sendable {
            public let signer: X509Certificate
            public let signingTime: Date
        }

        public let trustAnchors: [X509Certificate]
        public let window: TimeInterval
        private let clock: @Sendable () -> Date
        private let cacheLimit: Int
        private let cache = Mutex<[X509Certificate: CachedChain]>([:])
        /// How many times a chain was validated in full (not taken from the cache), and how many
        /// chains are cached: for tests and metrics.
        private let validations = Atomic<Int>(0)
        var chainValidations: Int { validations.load(ordering: .relaxed) }
        var cachedChains: Int { cache.withLock { $0.count } }
        /// Parses each distinct signing certificate once.
        private let signatures: CMSDetachedVerifier

        struct CachedChain {
            let validFrom: Date
            let validUntil: Date
        }

        /// - Parameters:
        ///   - trustAnchors: the roots accepted (Apple Root CA - G3 unless a test names its own).
        ///   - window: how far the signing time may be from the clock, either way (Apple suggests minutes).
        ///   - clock: "now", injectable so recorded tokens can be checked as of their time.
        ///   - cacheLimit: how many verified certificate chains are remembered.
        public init(
            trustAnchors: [X509Certificate]? = nil, window: TimeInterval = 300, clock: @escaping @Sendable () -> Date = { Date() },
            cacheLimit: Int = 64
        ) throws {
            self.trustAnchors = try trustAnchors ?? [X509Certificate(pemRepresentation: ApplePay.appleRootCAG3PEM)]
            self.window = window
            self.clock = clock
            self.cacheLimit = cacheLimit
            self.signatures = CMSDetachedVerifier(cacheLimit: cacheLimit)
        }

        /// Verifies `token`.
        /// - Parameters:
        ///   - token: the payment token as the device sent it.
        ///   - applicationData: the request's applicationData, when the caller set one: the
        ///     token's `header.applicationData` must be its SHA-256.
        /// - Throws: `PaymentError` whose message starts with the failed ``TokenCheck``.
        public func verify(_ token: PaymentToken, applicationData: [UInt8]? = nil) throws -> Verified {
            try verify(token, decoded: try token.decoded(), applicationData: applicationData)
        }

        /// ``verify(_:applicationData:)`` with the token's fields already decoded.
        func verify(_ token: PaymentToken, decoded: PaymentToken.Decoded, applicationData: [UInt8]?) throws -> Verified {
            let verified: CMSDetachedVerifier.Verified
            do {
                verified = try signatures.verify(signature: decoded.signature, content: decoded.signedContent)
            } catch let error as CryptoError where error.code == .invalidEncoding || error.code == .invalidCertificate {
                throw TokenCheck.format.failure("signature is not a CMS SignedData structure with its certificates")
            } catch {
                throw TokenCheck.signature.failure("the CMS signature does not match the token's content")
            }
            let signer = verified.signer
            let now = clock()
            try checkChain(signer, intermediates: verified.certificates, at: now)
            guard let signingTime = verified.signingTime else { throw TokenCheck.signingTime.failure("the signature has no signingTime") }
            guard abs(signingTime.timeIntervalSince(now)) <= window else {
                throw TokenCheck.signingTime.failure(
                    "signed at \(signingTime.ISO8601Format()), more than \(Int(window)) s from now (\(now.ISO8601Format()))")
            }
            if let applicationData {
                let expected = Hex.encode(DigestAlgorithm.sha256.hash(applicationData))
                guard token.header.applicationData?.lowercased() == expected else {
                    throw TokenCheck.applicationData.failure("header.applicationData is not the SHA-256 of the request's applicationData")
                }
            }
            return Verified(signer: signer, signingTime: signingTime)
        }

        private func checkChain(_ signer: X509Certificate, intermediates: [X509Certificate], at now: Date) throws {
            // Keyed by the certificate (hashed by its last bytes, compared whole).
            if let cached = cache.withLock({ $0[signer] }), cached.validFrom <= now, now <= cached.validUntil { return }
            guard signer.extension(oid: ApplePay.leafOID) != nil else {
                throw TokenCheck.leafOID.failure("the signing certificate lacks Apple's leaf OID \(ApplePay.leafOID)")
            }
            let chain: [X509Certificate]
            validations.add(1, ordering: .relaxed)
            do {
                chain = try CertificateChainVerifier.verify(signer, intermediates: intermediates, trustAnchors: trustAnchors, at: now)
            } catch let error as CryptoError {
                throw TokenCheck.chain.failure(
                    "the signer's chain does not lead to a trusted Apple root at \(now.ISO8601Format()): \(error.reason)")
            }
            guard chain.count >= 3, chain[1].extension(oid: ApplePay.intermediateOID) != nil else {
                throw TokenCheck.intermediateOID.failure("the intermediate lacks Apple's OID \(ApplePay.intermediateOID)")
            }
            let entry = CachedChain(
                validFrom: chain.map(\.notValidBefore).max() ?? now, validUntil: chain.map(\.notValidAfter).min() ?? now)
            cache.withLock { cache in
                if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[signer] = entry
            }
        }
    }
}

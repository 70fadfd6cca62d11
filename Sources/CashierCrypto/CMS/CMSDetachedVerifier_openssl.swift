internal import COpenSSL
internal import COpenSSLShims
public import Foundation
import Synchronization

/// Verifies detached CMS signatures that keep arriving with the same few certificates (Apple Pay
/// tokens: one leaf and one intermediate for months), parsing each distinct certificate once.
///
/// OpenSSL 3.0 spends most of a CMS parse decoding the embedded certificates' public keys. This
/// verifier lifts the `certificates` field out of the structure (a BER walk that only moves
/// bytes), takes the certificates from a bounded cache keyed by their exact DER, and hands them
/// to `CMS_verify` beside the stripped structure — so OpenSSL still does every CMS check: the
/// signer identifier, the message digest, the signed attributes and the signature.
public final class CMSDetachedVerifier: Sendable {
    /// What a verification established (no chain: see ``CertificateChainVerifier``).
    public struct Verified: Sendable {
        public let signer: X509Certificate
        /// The embedded certificates, in their order.
        public let certificates: [X509Certificate]
        /// The signer's `signingTime` attribute, when present.
        public let signingTime: Date?
    }

    /// A parsed certificate, its issuer and serial number as they are encoded (how a SignerInfo
    /// names it) and, for P-256 keys, its key (whose verify contexts are pooled).
    struct Entry {
        let certificate: X509Certificate
        let p256Key: P256PublicKey?
        let issuerAndSerial: (issuer: [UInt8], serial: [UInt8])?
    }

    /// Keyed by the certificate's last eight bytes (inside its signature: distinct per
    /// certificate), which cost nothing to hash; an entry is used only when the whole DER is equal.
    private let cache = Mutex<[UInt64: Entry]>([:])
    private let cacheLimit: Int
    private let fastPath: Bool

    /// - Parameters:
    ///   - cacheLimit: how many distinct certificates to keep parsed.
    ///   - fastPath: verify the common shape (one signer by issuer and serial, SHA-256,
    ///     ECDSA P-256, DER signed attributes) with the cached key directly; anything else, and
    ///     `false` here, goes through OpenSSL's `CMS_verify`.
    public init(cacheLimit: Int = 64, fastPath: Bool = true) {
        self.cacheLimit = cacheLimit
        self.fastPath = fastPath
    }

    /// Verifies `signature` (DER or BER `SignedData`) over detached binary `content`.
    /// - Throws: `CryptoError.invalidEncoding` for a structure that does not parse,
    ///   `.signatureVerificationFailure` when the signature or its digest does not match.
    public func verify(signature: [UInt8], content: some ContiguousBytes) throws -> Verified {
        let layout = try Layout(signature)
        let entries = try layout.certificates.map { try entry(signature[$0]) }
        let certificates = entries.map(\.certificate)
        if fastPath {
            let outcome = try content.withUnsafeBytes { content in
                try CMSSignerInfoCheck.run(signedData: signature, parts: layout.signedDataParts, content: content, certificates: entries)
            }
            switch outcome {
            case .valid(let signer, let signingTime):
                return Verified(signer: signer, certificates: certificates, signingTime: signingTime)
            case .invalid(let reason):
                throw CryptoError(.signatureVerificationFailure, reason)
            case .notApplicable:
                break
            }
        }
        let cms = try CMSSignedData(derRepresentation: layout.withoutCertificates(signature))
        guard let stack = cashier_sk_X509_new_null() else { throw OpenSSLErrorQueue.error(.internalFailure, "sk_X509_new failed") }
        defer { cashier_sk_X509_free(stack) }
        for certificate in certificates { _ = cashier_sk_X509_push(stack, certificate.backing.pointer) }
        guard let store = X509_STORE_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        let verified = content.withUnsafeBytes { bytes -> Int32 in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count)) else { return 0 }
            defer { BIO_free(bio) }
            return CMS_verify(cms.backing.pointer, stack, store, bio, nil, UInt32(CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY | CMS_NOINTERN))
        }
        guard verified == 1 else {
            throw OpenSSLErrorQueue.error(.signatureVerificationFailure, "the CMS signature does not match the content")
        }
        guard let signers = CMS_get0_signers(cms.backing.pointer) else {
            throw OpenSSLErrorQueue.error(.signatureVerificationFailure, "the CMS structure names no signer certificate")
        }
        defer { cashier_sk_X509_free(signers) }
        guard cashier_sk_X509_num(signers) == 1, let pointer = cashier_sk_X509_value(signers, 0),
            let signer = certificates.first(where: { $0.backing.pointer == pointer })
        else { throw CryptoError(.signatureVerificationFailure, "expected exactly one signer among the embedded certificates") }
        return Verified(signer: signer, certificates: certificates, signingTime: cms.signingTime)
    }

    /// A certificate from the cache, parsed (and kept) the first time its DER is seen.
    private func entry(_ der: ArraySlice<UInt8>) throws -> Entry {
        let key = X509Certificate.cacheKey(der)
        if let cached = cache.withLock({ $0[key] }), Self.equal(cached.certificate.derRepresentation, der) { return cached }
        let parsed = try X509Certificate(derRepresentation: der)
        let entry = Entry(
            certificate: parsed, p256Key: try? P256PublicKey(certificate: parsed),
            issuerAndSerial: try? CMSSignerInfoCheck.issuerAndSerial(parsed.derRepresentation))
        cache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = entry
        }
        return entry
    }

    /// Byte equality with `memcmp` (a certificate is a kilobyte or more).
    static func equal(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        a.count == b.count && a.withUnsafeBytes { a in b.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
    }

    /// Where things are in `ContentInfo { contentType, [0] SignedData { …, [0] certificates, … } }`.
    struct Layout {
        /// ContentInfo's two children.
        let info: [BERReader.Element]
        /// SignedData's children, without `certificates`.
        let signedDataParts: [BERReader.Element]
        /// Each embedded certificate's bytes.
        let certificates: [Range<Int>]

        init(_ der: [UInt8]) throws {
            let reader = BERReader(bytes: der)
            do {
                let info = try reader.element(at: 0, limit: der.count)
                let infoParts = try reader.children(of: info)
                guard info.tag == 0x30, info.end == der.count, infoParts.count == 2, infoParts[0].tag == 0x06, infoParts[1].tag == 0xA0
                else {
                    throw BERReader.Malformed()
                }
                let wrapped = try reader.children(of: infoParts[1])
                guard wrapped.count == 1, wrapped[0].tag == 0x30 else { throw BERReader.Malformed() }
                var parts: [BERReader.Element] = []
                var certificates: [Range<Int>] = []
                for part in try reader.children(of: wrapped[0]) {
                    if part.tag == 0xA0 {
                        certificates = try reader.children(of: part).map { $0.start..<$0.end }
                    } else {
                        parts.append(part)
                    }
                }
                self.info = infoParts
                self.signedDataParts = parts
                self.certificates = certificates
            } catch is BERReader.Malformed {
                throw CryptoError(.invalidEncoding, "not a CMS SignedData structure")
            }
        }

        /// The same structure without `certificates` (DER lengths), for OpenSSL, which then takes
        /// the cached certificates beside it.
        func withoutCertificates(_ der: [UInt8]) -> [UInt8] {
            var kept: [UInt8] = []
            for part in signedDataParts { kept += der[part.start..<part.end] }
            let signedData = BERReader.header(tag: 0x30, length: kept.count) + kept
            let explicit = BERReader.header(tag: 0xA0, length: signedData.count) + signedData
            let body = Array(der[info[0].start..<info[0].end]) + explicit
            return BERReader.header(tag: 0x30, length: body.count) + body
        }
    }
}

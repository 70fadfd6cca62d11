internal import COpenSSL
internal import COpenSSLShims
public import Foundation

/// A CMS (PKCS#7) `SignedData` structure with a detached signature, as in an Apple Pay token.
///
/// ```swift
/// let cms = try CMSSignedData(derRepresentation: signatureBytes)
/// let result = try cms.verifyDetached(content: signedBytes, trustAnchors: [appleRootG3], at: signingDate)
/// result.signer.extension(oid: "1.2.840.113635.100.6.29")
/// ```
public struct CMSSignedData: Sendable {
    final class Backing: @unchecked Sendable {
        let pointer: OpaquePointer
        init(taking pointer: OpaquePointer) { self.pointer = pointer }
        deinit { CMS_ContentInfo_free(pointer) }
    }

    let backing: Backing

    /// Parses DER (BER with indefinite lengths, as Apple sends, is accepted).
    /// - Throws: `CryptoError.invalidEncoding` when the bytes are not a CMS structure.
    public init(derRepresentation der: some ContiguousBytes) throws {
        let bytes = der.withUnsafeBytes { Array($0) }
        let parsed = bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw OpenSSLErrorQueue.error(.invalidEncoding, "not a DER CMS structure") }
        guard OBJ_obj2nid(CMS_get0_type(parsed)) == NID_pkcs7_signed else {
            CMS_ContentInfo_free(parsed)
            throw CryptoError(.invalidEncoding, "the CMS structure is not SignedData")
        }
        backing = Backing(taking: parsed)
    }

    /// The certificates embedded in the structure.
    public var embeddedCertificates: [X509Certificate] {
        guard let stack = CMS_get1_certs(backing.pointer) else { return [] }
        defer { cashier_sk_X509_pop_free(stack) }
        return (0..<cashier_sk_X509_num(stack)).compactMap { index in
            cashier_sk_X509_value(stack, index).flatMap { try? X509Certificate(retaining: $0) }
        }
    }

    /// Verifies the signature over detached `content`, then the signer's chain.
    ///
    /// The content is treated as binary (no MIME canonicalisation). The chain is built from the
    /// embedded certificates up to one of `trustAnchors` and checked at `time`, not at the
    /// current clock, so a recorded message can be verified as of when it was signed.
    ///
    /// - Parameters:
    ///   - content: the bytes that were signed.
    ///   - trustAnchors: the only roots accepted.
    ///   - time: the time at which every certificate must be valid.
    /// - Returns: the signer, the verified chain and the signing time.
    /// - Throws: `CryptoError.signatureVerificationFailure` when the signature does not match the
    ///   content; `.chainVerificationFailure` (with OpenSSL's reason, e.g. "certificate has
    ///   expired") when the chain does not lead to an anchor at `time`.
    public func verifyDetached(content: some ContiguousBytes, trustAnchors: [X509Certificate], at time: Date) throws -> CMSVerification {
        let signer = try verifiedSigner(content: content)
        let embedded = embeddedCertificates
        let chain = try CertificateChainVerifier.verify(signer, intermediates: embedded, trustAnchors: trustAnchors, at: time)
        return CMSVerification(signer: signer, chain: chain, embeddedCertificates: embedded, signingTime: signingTime)
    }

    /// Checks only that the signature over detached `content` was made by the signer certificate
    /// inside, and returns that certificate — no chain. For callers that validate (and cache) the
    /// chain themselves.
    /// - Throws: `CryptoError.signatureVerificationFailure`.
    public func verifiedSigner(content: some ContiguousBytes) throws -> X509Certificate {
        try verifySignature(content: content)
        guard let signers = CMS_get0_signers(backing.pointer) else {
            throw OpenSSLErrorQueue.error(.signatureVerificationFailure, "the CMS structure names no signer certificate")
        }
        defer { cashier_sk_X509_free(signers) }
        guard cashier_sk_X509_num(signers) == 1, let signerPointer = cashier_sk_X509_value(signers, 0) else {
            throw CryptoError(.signatureVerificationFailure, "expected exactly one signer, found \(cashier_sk_X509_num(signers))")
        }
        return try X509Certificate(retaining: signerPointer)
    }

    /// Checks only that the signature matches the content and the signer certificate inside.
    private func verifySignature(content: some ContiguousBytes) throws {
        guard let store = X509_STORE_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        let verified = content.withUnsafeBytes { bytes -> Int32 in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count)) else { return 0 }
            defer { BIO_free(bio) }
            let flags = UInt32(CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY)
            return CMS_verify(backing.pointer, nil, store, bio, nil, flags)
        }
        guard verified == 1 else {
            throw OpenSSLErrorQueue.error(.signatureVerificationFailure, "the CMS signature does not match the content")
        }
    }

    /// Signs `content` as a detached CMS `SignedData` (binary content, SHA-256), embedding
    /// `signer` and `certificates` and a `signingTime` attribute of the caller's choosing — the
    /// shape of an Apple Pay token's signature. For test CAs and minters.
    /// - Returns: the DER encoding.
    public static func signDetached(
        content: some ContiguousBytes, signer: X509Certificate, key: CertificateKey, certificates: [X509Certificate], signingTime: Date
    ) throws -> [UInt8] {
        let flags = UInt32(CMS_PARTIAL | CMS_DETACHED | CMS_BINARY)
        guard let cms = CMS_sign(nil, nil, nil, nil, flags) else { throw OpenSSLErrorQueue.error(.internalFailure, "CMS_sign failed") }
        defer { CMS_ContentInfo_free(cms) }
        guard let info = CMS_add1_signer(cms, signer.backing.pointer, key.backing.pointer, EVP_sha256(), flags) else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the key does not match the signer certificate")
        }
        guard let time = ASN1_TIME_set(nil, time_t(signingTime.timeIntervalSince1970)) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "the signing time cannot be encoded")
        }
        defer { ASN1_TIME_free(time) }
        // A signingTime present before CMS_final is kept; otherwise OpenSSL would add the current time.
        guard CMS_signed_add1_attr_by_NID(info, NID_pkcs9_signingTime, ASN1_STRING_type(time), time, -1) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "the signingTime attribute cannot be added")
        }
        for certificate in certificates where CMS_add1_cert(cms, certificate.backing.pointer) != 1 {
            throw OpenSSLErrorQueue.error(.internalFailure, "a certificate cannot be embedded")
        }
        let finished = content.withUnsafeBytes { bytes -> Int32 in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count)) else { return 0 }
            defer { BIO_free(bio) }
            return CMS_final(cms, bio, nil, flags)
        }
        guard finished == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "the CMS signature cannot be made") }
        return try EVPKey.encode { i2d_CMS_ContentInfo(cms, $0) }
    }

    /// The first signer's `signingTime` signed attribute.
    public var signingTime: Date? {
        guard let infos = CMS_get0_SignerInfos(backing.pointer), cashier_sk_CMS_SignerInfo_num(infos) > 0,
            let info = cashier_sk_CMS_SignerInfo_value(infos, 0)
        else { return nil }
        let index = CMS_signed_get_attr_by_NID(info, NID_pkcs9_signingTime, -1)
        guard index >= 0, let attribute = CMS_signed_get_attr(info, index) else { return nil }
        for type in [V_ASN1_UTCTIME, V_ASN1_GENERALIZEDTIME] {
            if let value = X509_ATTRIBUTE_get0_data(attribute, 0, type, nil) {
                return X509Certificate.date(value.assumingMemoryBound(to: ASN1_TIME.self))
            }
        }
        OpenSSLErrorQueue.clear()
        return nil
    }
}

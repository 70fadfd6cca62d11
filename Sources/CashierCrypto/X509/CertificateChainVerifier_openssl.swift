internal import COpenSSL
internal import COpenSSLShims
public import Foundation

/// Path validation of a certificate to caller-chosen trust anchors at a caller-chosen time.
public enum CertificateChainVerifier {
    /// Builds and verifies the chain from `leaf` through `intermediates` to one of `trustAnchors`.
    ///
    /// No system roots are consulted. Any key usage purpose is accepted; protocol-specific checks
    /// (Apple's marker OIDs, for instance) belong to the caller.
    /// - Returns: the chain, leaf first, anchor last.
    /// - Throws: `CryptoError.chainVerificationFailure` with OpenSSL's reason.
    public static func verify(
        _ leaf: X509Certificate,
        intermediates: [X509Certificate],
        trustAnchors: [X509Certificate],
        at time: Date
    ) throws -> [X509Certificate] {
        guard !trustAnchors.isEmpty else {
            throw CryptoError(.chainVerificationFailure, "no trust anchor was given")
        }
        guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new(), let untrusted = cashier_sk_X509_new_null() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "could not allocate a certificate store")
        }
        defer {
            X509_STORE_free(store)
            X509_STORE_CTX_free(context)
            cashier_sk_X509_free(untrusted)
        }
        for anchor in trustAnchors where X509_STORE_add_cert(store, anchor.backing.pointer) != 1 {
            throw OpenSSLErrorQueue.error(.internalFailure, "could not add a trust anchor")
        }
        for certificate in intermediates {
            _ = cashier_sk_X509_push(untrusted, certificate.backing.pointer)
        }
        guard X509_STORE_CTX_init(context, store, leaf.backing.pointer, untrusted) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "could not start chain verification")
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(parameters, time_t(time.timeIntervalSince1970.rounded(.down)))
        X509_VERIFY_PARAM_set_purpose(parameters, X509_PURPOSE_ANY)
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            OpenSSLErrorQueue.clear()
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            throw CryptoError(.chainVerificationFailure, "certificate chain rejected at depth \(depth): \(reason)")
        }
        guard let chain = X509_STORE_CTX_get1_chain(context) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "verified chain unavailable")
        }
        defer { cashier_sk_X509_pop_free(chain) }
        return try (0..<cashier_sk_X509_num(chain)).map { index in
            guard let certificate = cashier_sk_X509_value(chain, index) else {
                throw CryptoError(.internalFailure, "verified chain has a hole")
            }
            return try X509Certificate(retaining: certificate)
        }
    }
}

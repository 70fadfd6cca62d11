internal import COpenSSL

/// An OpenSSL library context with the `legacy` provider loaded beside `default`, for reading
/// old PKCS#12 files only.
///
/// China's CFCA issues UnionPay merchants' `.pfx` files with the certificate bag encrypted by
/// `pbeWithSHA1And40BitRC2-CBC`, which OpenSSL 3 keeps in its legacy provider: the default
/// context answers "unsupported". The context is private to this file's callers, so RC2 and the
/// other legacy ciphers stay out of every other operation in the process; it is made once and
/// lives as long as the process.
enum LegacyLibraryContext {
    /// The context, or why it could not be made (the legacy module is missing, say).
    static let shared: Result<Pointer, CryptoError> = {
        guard let context = OSSL_LIB_CTX_new() else {
            return .failure(OpenSSLErrorQueue.error(.internalFailure, "OSSL_LIB_CTX_new failed"))
        }
        // Loading any provider stops the default one loading by itself: both are named.
        guard OSSL_PROVIDER_load(context, "default") != nil else {
            OSSL_LIB_CTX_free(context)
            return .failure(OpenSSLErrorQueue.error(.unsupportedAlgorithm, "OpenSSL's default provider cannot be loaded"))
        }
        guard OSSL_PROVIDER_load(context, "legacy") != nil else {
            OSSL_LIB_CTX_free(context)
            return .failure(
                OpenSSLErrorQueue.error(
                    .unsupportedAlgorithm,
                    "OpenSSL's legacy provider (ossl-modules/legacy.so) cannot be loaded: RC2-encrypted PKCS#12 files cannot be read"))
        }
        return .success(Pointer(context))
    }()

    /// The context's pointer, made `Sendable`: an `OSSL_LIB_CTX` is safe to share once its
    /// providers are loaded.
    struct Pointer: @unchecked Sendable {
        let value: OpaquePointer
        init(_ value: OpaquePointer) { self.value = value }
    }

    /// Runs `body` with the legacy context as this thread's default (`OSSL_LIB_CTX_set0_default`
    /// is per thread), then puts the previous default back. `body` must not suspend.
    static func withDefault<Result>(_ body: () throws -> Result) throws -> Result {
        let context = try shared.get()
        let previous = OSSL_LIB_CTX_set0_default(context.value)
        defer { OSSL_LIB_CTX_set0_default(previous) }
        return try body()
    }
}

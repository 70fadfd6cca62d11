internal import COpenSSL

/// Facts about the OpenSSL library Cashier is linked against.
public enum OpenSSLLibrary {
    /// OpenSSL's own version text, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    public static var version: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }
}

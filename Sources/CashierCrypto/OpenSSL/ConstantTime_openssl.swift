internal import COpenSSL
public import Foundation

/// Comparison whose running time does not depend on where two byte strings differ.
public enum ConstantTime {
    /// `true` when `a` and `b` hold the same bytes. Lengths are not secret: unequal lengths
    /// return `false` at once; equal lengths are compared with OpenSSL's `CRYPTO_memcmp`. Nothing
    /// empty is equal to anything, itself included: a secret is never empty, so a missing key
    /// must never match a missing key.
    public static func equals(_ a: some ContiguousBytes, _ b: some ContiguousBytes) -> Bool {
        a.withUnsafeBytes { lhs in
            b.withUnsafeBytes { rhs in
                guard lhs.count == rhs.count, lhs.count > 0 else { return false }
                return CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
            }
        }
    }

    /// `true` when two strings have the same UTF-8 bytes (for hex or base64 signatures).
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}

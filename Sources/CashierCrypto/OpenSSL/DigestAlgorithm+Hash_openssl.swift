public import Foundation
internal import COpenSSL

extension DigestAlgorithm {
    /// Hashes bytes in one call.
    ///
    /// - Parameter bytes: the message.
    /// - Returns: the digest, `byteCount` bytes long.
    public func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        let md = FetchedAlgorithms.shared.digest(self)
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, md, nil)
            }
        }
        precondition(ok == 1 && Int(length) == byteCount, "EVP_Digest failed: \(OpenSSLErrorQueue.drain())")
        return out
    }

    /// Hashes the UTF-8 bytes of a string.
    public func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}

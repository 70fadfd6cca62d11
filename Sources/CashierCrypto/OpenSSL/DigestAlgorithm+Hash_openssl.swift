internal import COpenSSL
public import Foundation

extension DigestAlgorithm {
    /// Hashes bytes in one call.
    ///
    /// - Parameter bytes: the message.
    /// - Returns: the digest, `byteCount` bytes long.
    @inlinable
    public func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        bytes.withUnsafeBytes { hash(buffer: $0) }
    }

    @usableFromInline
    func hash(buffer input: UnsafeRawBufferPointer) -> [UInt8] {
        let md = FetchedAlgorithms.shared.digest(self)
        let size = byteCount
        var length: UInt32 = 0
        var ok: Int32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: size) { output, count in
            ok = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, md, nil)
            count = ok == 1 ? size : 0
        }
        precondition(ok == 1 && Int(length) == size, "EVP_Digest failed: \(OpenSSLErrorQueue.drain())")
        return out
    }

    /// Hashes the UTF-8 bytes of a string.
    public func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}

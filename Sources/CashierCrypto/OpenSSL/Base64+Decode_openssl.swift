internal import COpenSSL
internal import Foundation

extension Base64 {
    /// Decodes standard, padded base64 with OpenSSL's `EVP_DecodeBlock`; `nil` when the bytes are
    /// not whole, valid base64 (the caller then reports the error).
    static func openSSLDecode(_ padded: UnsafeBufferPointer<UInt8>) -> Data? {
        guard !padded.isEmpty, padded.count % 4 == 0, padded.count < Int(Int32.max) else { return padded.isEmpty ? Data() : nil }
        var padding = 0
        if padded[padded.count - 1] == UInt8(ascii: "=") { padding += 1 }
        if padded[padded.count - 2] == UInt8(ascii: "=") { padding += 1 }
        // EVP_DecodeBlock accepts '=' only at the end; anything else invalid makes it fail.
        if UnsafeBufferPointer(rebasing: padded[..<(padded.count - padding)]).contains(UInt8(ascii: "=")) { return nil }
        var out = Data(count: padded.count / 4 * 3)
        let written = out.withUnsafeMutableBytes { output in
            EVP_DecodeBlock(output.baseAddress?.assumingMemoryBound(to: UInt8.self), padded.baseAddress, Int32(padded.count))
        }
        guard written >= 0, Int(written) == out.count else { return nil }
        out.removeLast(padding)
        return out
    }
}

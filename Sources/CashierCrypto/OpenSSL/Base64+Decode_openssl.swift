internal import COpenSSL

extension Base64 {
    /// Decodes standard, padded base64 with OpenSSL's `EVP_DecodeBlock`; `nil` when the bytes are
    /// not whole, valid base64 (the caller then reports the error).
    static func openSSLDecode(_ padded: [UInt8]) -> [UInt8]? {
        guard !padded.isEmpty, padded.count % 4 == 0, padded.count < Int(Int32.max) else { return padded.isEmpty ? [] : nil }
        var padding = 0
        if padded[padded.count - 1] == UInt8(ascii: "=") { padding += 1 }
        if padded[padded.count - 2] == UInt8(ascii: "=") { padding += 1 }
        // EVP_DecodeBlock accepts '=' only at the end; anything else invalid makes it fail.
        if padded.dropLast(padding).contains(UInt8(ascii: "=")) { return nil }
        var out = [UInt8](repeating: 0, count: padded.count / 4 * 3)
        let written = out.withUnsafeMutableBufferPointer { output in
            padded.withUnsafeBufferPointer { input in EVP_DecodeBlock(output.baseAddress, input.baseAddress, Int32(input.count)) }
        }
        guard written >= 0, Int(written) == out.count else { return nil }
        return Array(out.dropLast(padding))
    }
}

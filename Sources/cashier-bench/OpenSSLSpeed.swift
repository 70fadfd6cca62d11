import Foundation

/// Runs `openssl speed` on this machine and reads its machine-readable (`-mr`) output.
///
/// `-elapsed` makes it divide by wall-clock time, as `Throughput` does, so the two are
/// comparable; both are measured in the same run.
struct OpenSSLSpeed {
    let seconds: Int

    /// RSA sign and verify per second for `bits` (`+F2:index:bits:sign/s:verify/s`).
    func rsa(bits: Int) throws -> (sign: Double, verify: Double) {
        let fields = try figures(["rsa\(bits)"], prefix: "+F2:")
        return (fields[2], fields[3])
    }

    /// ECDSA P-256 sign and verify per second (`+F4:index:bits:sign/s:verify/s`).
    func ecdsaP256() throws -> (sign: Double, verify: Double) {
        let fields = try figures(["ecdsap256"], prefix: "+F4:")
        return (fields[2], fields[3])
    }

    /// P-256 ECDH derivations per second (`+F5:index:bits:ops/s:seconds/op`).
    func ecdhP256() throws -> Double {
        try figures(["ecdhp256"], prefix: "+F5:")[2]
    }

    /// HMAC with `digest` over `bytes`-long messages, per second.
    func hmac(digest: String, bytes: Int) throws -> Double {
        try messagesPerSecond(["-bytes", String(bytes), "-hmac", digest], bytes: bytes)
    }

    /// AEAD seal operations per second (`-aead`: set IV, 13 bytes of AAD, encrypt, tag — as TLS does).
    func aead(cipher: String, bytes: Int) throws -> Double {
        try messagesPerSecond(["-bytes", String(bytes), "-aead", "-evp", cipher], bytes: bytes)
    }

    /// Symmetric results come as `+F:index:name:bytes-per-second`.
    private func messagesPerSecond(_ arguments: [String], bytes: Int) throws -> Double {
        let fields = try figures(arguments, prefix: "+F:")
        guard let rate = fields.last, rate > 0 else { throw Failure("unexpected openssl speed output") }
        return rate / Double(bytes)
    }

    /// The numeric fields of the first output line starting with `prefix` (non-numbers become 0).
    private func figures(_ arguments: [String], prefix: String) throws -> [Double] {
        let output = try run(["speed", "-mr", "-elapsed", "-seconds", String(seconds)] + arguments)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw Failure("openssl speed \(arguments.joined(separator: " ")) printed no \(prefix) line")
        }
        return line.dropFirst(prefix.count).split(separator: ":").map { Double($0) ?? 0 }
    }

    private func run(_ arguments: [String]) throws -> String {
        try Subprocess.run("/usr/bin/env", ["openssl"] + arguments)
    }

    typealias Failure = Subprocess.Failure
}

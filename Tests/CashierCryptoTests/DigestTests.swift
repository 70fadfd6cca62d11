import Testing

@testable import CashierCrypto

@Suite struct DigestTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let algorithm: DigestAlgorithm
        let message: String
        let hex: String
        var testDescription: String { "\(algorithm)(\"\(message)\")" }
    }

    /// FIPS 180-2 and RFC 1321 examples.
    static let vectors: [Vector] = [
        Vector(algorithm: .insecureMD5, message: "", hex: "d41d8cd98f00b204e9800998ecf8427e"),
        Vector(algorithm: .insecureMD5, message: "abc", hex: "900150983cd24fb0d6963f7d28e17f72"),
        Vector(algorithm: .insecureSHA1, message: "abc", hex: "a9993e364706816aba3e25717850c26c9cd0d89d"),
        Vector(algorithm: .sha256, message: "", hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(algorithm: .sha256, message: "abc", hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            algorithm: .sha384, message: "abc",
            hex: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        Vector(
            algorithm: .sha512, message: "abc",
            hex:
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
    ]

    @Test(arguments: vectors)
    func knownAnswer(_ vector: Vector) {
        let digest = vector.algorithm.hash(vector.message)
        #expect(Hex.encode(digest) == vector.hex)
        #expect(digest.count == vector.algorithm.byteCount)
        #expect(vector.algorithm.hash(Array(vector.message.utf8)) == digest)
    }

    @Test func differentInputsDiffer() {
        #expect(DigestAlgorithm.sha256.hash("abc") != DigestAlgorithm.sha256.hash("abd"))
    }
}

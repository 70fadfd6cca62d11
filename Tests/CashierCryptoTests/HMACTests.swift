import Testing

@testable import CashierCrypto

@Suite struct HMACTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let data: String
        let mac: String
        var testDescription: String { "RFC 4231 case \(name)" }
    }

    struct File: Decodable { let cases: [Case] }

    static let cases: [Case] = (try? Fixture.decode(File.self, "rfc4231_hmac_sha256.json").cases) ?? []

    @Test func fixtureLoaded() {
        #expect(Self.cases.count == 7)
    }

    @Test(arguments: cases)
    func rfc4231(_ vector: Case) {
        let key = HMACKey(key: [UInt8](hex: vector.key))
        let mac = key.authenticationCode(for: [UInt8](hex: vector.data))
        // Case 5 publishes only the first 128 bits.
        #expect(Hex.encode(mac).hasPrefix(vector.mac))
        #expect(Hex.encode(mac).count == 64)
    }

    @Test func reusedKeyGivesTheSameAnswerFromManyThreads() async {
        let key = HMACKey(key: Array("Jefe".utf8))
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let results = await withTaskGroup(of: String.self) { group in
            for _ in 0..<64 {
                group.addTask { Hex.encode(key.authenticationCode(for: "what do ya want for nothing?")) }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 == expected })
    }

    @Test func verificationRejectsATamperedCode() {
        let key = HMACKey(key: Array("k".utf8))
        var mac = key.authenticationCode(for: "message")
        #expect(key.isValidAuthenticationCode(mac, for: Array("message".utf8)))
        #expect(!key.isValidAuthenticationCode(mac, for: Array("messagf".utf8)))
        mac[0] ^= 1
        #expect(!key.isValidAuthenticationCode(mac, for: Array("message".utf8)))
        #expect(!key.isValidAuthenticationCode(mac.dropLast(), for: Array("message".utf8)))
    }

    @Test func emptyKeyAndEmptyMessage() {
        // HMAC-SHA256("", "") from Python's hmac module.
        let mac = HMACKey(key: [UInt8]()).authenticationCode(for: [UInt8]())
        #expect(Hex.encode(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func otherDigests() {
        // RFC 4231 case 2 with SHA-512.
        let mac = HMACKey(key: Array("Jefe".utf8), digest: .sha512).authenticationCode(for: "what do ya want for nothing?")
        #expect(
            Hex.encode(mac)
                == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        )
    }
}

import Foundation
import Testing

@testable import CashierCrypto

@Suite struct AESGCMTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let iv: String
        let aad: String
        let plaintext: String
        let ciphertext: String
        let tag: String
        var testDescription: String { name }
    }

    struct File: Decodable { let cases: [Case] }

    static let cases: [Case] = (try? Fixture.decode(File.self, "gcm_spec.json").cases) ?? []

    @Test func fixtureLoaded() {
        #expect(Self.cases.count == 11)
    }

    @Test(arguments: cases)
    func sealMatchesTheSpec(_ vector: Case) throws {
        let key = try AESGCMKey([UInt8](hex: vector.key))
        let box = try key.seal([UInt8](hex: vector.plaintext), iv: [UInt8](hex: vector.iv), authenticating: [UInt8](hex: vector.aad))
        #expect(Hex.encode(box.ciphertext) == vector.ciphertext)
        #expect(Hex.encode(box.tag) == vector.tag)
    }

    @Test(arguments: cases)
    func openMatchesTheSpec(_ vector: Case) throws {
        let key = try AESGCMKey([UInt8](hex: vector.key))
        let box = AESGCMSealedBox(ciphertext: [UInt8](hex: vector.ciphertext), tag: [UInt8](hex: vector.tag))
        let plaintext = try key.open(box, iv: [UInt8](hex: vector.iv), authenticating: [UInt8](hex: vector.aad))
        #expect(Hex.encode(plaintext) == vector.plaintext)
    }

    /// The one-shot open (a key used for one message) gives the same answers as a kept key.
    @Test(arguments: cases)
    func oneShotOpenMatchesTheSpec(_ vector: Case) throws {
        let combined = [UInt8](hex: vector.ciphertext) + [UInt8](hex: vector.tag)
        let key = [UInt8](hex: vector.key)
        let iv = [UInt8](hex: vector.iv)
        let aad = [UInt8](hex: vector.aad)
        #expect(Hex.encode(try AESGCMKey.open(combined: combined, key: key, iv: iv, authenticating: aad)) == vector.plaintext)
        for position in [0, combined.count - 1] where !combined.isEmpty {
            var altered = combined
            altered[position] ^= 0x01
            let error = #expect(throws: CryptoError.self) { try AESGCMKey.open(combined: altered, key: key, iv: iv, authenticating: aad) }
            #expect(error?.code == .authenticationFailure)
        }
        var otherKey = key
        otherKey[0] ^= 0x01
        #expect(throws: CryptoError.self) { try AESGCMKey.open(combined: combined, key: otherKey, iv: iv, authenticating: aad) }
        #expect(throws: CryptoError.self) { try AESGCMKey.open(combined: combined, key: key, iv: iv, authenticating: aad + [0]) }
    }

    @Test func oneShotOpenRefusesBadArguments() throws {
        let iv = [UInt8](repeating: 0, count: 12)
        let combined = try AESGCMKey([UInt8](repeating: 1, count: 32)).seal([1, 2, 3], iv: iv).combined
        let shortKey = #expect(throws: CryptoError.self) {
            try AESGCMKey.open(combined: combined, key: [UInt8](repeating: 1, count: 31), iv: iv)
        }
        #expect(shortKey?.code == .invalidKey)
        let tooShort = #expect(throws: CryptoError.self) {
            try AESGCMKey.open(combined: Array(combined.prefix(15)), key: [UInt8](repeating: 1, count: 32), iv: iv)
        }
        #expect(tooShort?.code == .invalidInput)
        let noIV = #expect(throws: CryptoError.self) {
            try AESGCMKey.open(combined: combined, key: [UInt8](repeating: 1, count: 32), iv: [UInt8]())
        }
        #expect(noIV?.code == .invalidInput)
    }

    @Test(arguments: cases)
    func tamperingIsDetected(_ vector: Case) throws {
        let key = try AESGCMKey([UInt8](hex: vector.key))
        let iv = [UInt8](hex: vector.iv)
        let aad = [UInt8](hex: vector.aad)
        var tag = [UInt8](hex: vector.tag)
        tag[15] ^= 0x01
        #expect(throws: CryptoError.self) {
            try key.open(AESGCMSealedBox(ciphertext: [UInt8](hex: vector.ciphertext), tag: tag), iv: iv, authenticating: aad)
        }
        var otherIV = iv
        otherIV[0] ^= 0x80
        let genuine = AESGCMSealedBox(ciphertext: [UInt8](hex: vector.ciphertext), tag: [UInt8](hex: vector.tag))
        #expect(throws: CryptoError.self) { try key.open(genuine, iv: otherIV, authenticating: aad) }
        #expect(throws: CryptoError.self) { try key.open(genuine, iv: iv, authenticating: aad + [0x00]) }
        if !vector.ciphertext.isEmpty {
            var ciphertext = [UInt8](hex: vector.ciphertext)
            ciphertext[0] ^= 0x01
            let error = #expect(throws: CryptoError.self) {
                try key.open(AESGCMSealedBox(ciphertext: ciphertext, tag: genuine.tag), iv: iv, authenticating: aad)
            }
            #expect(error?.code == .authenticationFailure)
        }
    }

    /// A 16-byte IV of zeros, as Apple Pay uses: the processout-2017 tokens under their
    /// published symmetric keys (AES-256 for EC_v1, AES-128 for RSA_v1).
    @Test(arguments: [
        ("ec", "0a82d78293c991ecd3db8c468ccbec1769557bf3b8ff65ab7002bf56708b9abb"),
        ("rsa", "da0d397afe2cdf424731824df96807ec"),
    ])
    func sixteenByteZeroIV(kind: String, keyHex: String) throws {
        struct Token: Decodable {
            struct PaymentData: Decodable { let data: String }
            let paymentData: PaymentData
        }
        let token = try Fixture.decode(Token.self, "applepay/processout-2017-token-\(kind).json")
        let expected = try Fixture.data("applepay/processout-2017-expected_plaintext-\(kind).json")
        let key = try AESGCMKey([UInt8](hex: keyHex))
        let plaintext = try key.open(combined: Base64.decode(token.paymentData.data), iv: [UInt8](repeating: 0, count: 16))
        #expect(Data(plaintext) == expected)
        let data = try Base64.decodeBytes(token.paymentData.data)
        #expect(try AESGCMKey.open(combined: data, key: [UInt8](hex: keyHex), iv: [UInt8](repeating: 0, count: 16)) == plaintext)
        #expect(throws: CryptoError.self) {
            try key.open(combined: Base64.decode(token.paymentData.data), iv: [UInt8](repeating: 0, count: 12))
        }
        #expect(throws: CryptoError.self) {
            try AESGCMKey.open(combined: data, key: [UInt8](hex: keyHex), iv: [UInt8](repeating: 0, count: 12))
        }
    }

    @Test func roundTripWithEveryKeySize() throws {
        for size in [16, 24, 32] {
            let key = try AESGCMKey(SecureRandom.bytes(count: size))
            let iv = SecureRandom.bytes(count: 12)
            let message = Array("支付成功 — paid".utf8)
            let box = try key.seal(message, iv: iv, authenticating: Array("aad".utf8))
            #expect(box.ciphertext != message)
            #expect(try key.open(combined: box.combined, iv: iv, authenticating: Array("aad".utf8)) == message)
            #expect(key.keySizeInBits == size * 8)
        }
    }

    @Test func badArgumentsAreRefused() throws {
        #expect(throws: CryptoError.self) { try AESGCMKey([UInt8](repeating: 0, count: 15)) }
        let key = try AESGCMKey([UInt8](repeating: 0, count: 32))
        #expect(throws: CryptoError.self) { try key.seal([1], iv: [UInt8]()) }
        #expect(throws: CryptoError.self) { try AESGCMSealedBox(combined: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: CryptoError.self) {
            try key.open(AESGCMSealedBox(ciphertext: [1], tag: [1, 2, 3]), iv: [UInt8](repeating: 0, count: 12))
        }
    }

    @Test func wrongKeyFails() throws {
        let iv = [UInt8](repeating: 7, count: 12)
        let box = try AESGCMKey([UInt8](repeating: 1, count: 32)).seal(Array("secret".utf8), iv: iv)
        let error = #expect(throws: CryptoError.self) { try AESGCMKey([UInt8](repeating: 2, count: 32)).open(box, iv: iv) }
        #expect(error?.code == .authenticationFailure)
    }
}

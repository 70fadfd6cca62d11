import Testing

@testable import CashierCrypto

@Suite struct P256Tests {
    struct RFC5903: Decodable {
        let i: String
        let gix: String
        let giy: String
        let r: String
        let grx: String
        let gry: String
        let shared_x: String
    }

    /// RFC 5903 §8.1: both sides derive the published shared x-coordinate.
    @Test func rfc5903KnownAnswer() throws {
        let vector = try Fixture.decode(RFC5903.self, "rfc5903_ecdh_p256.json")
        let initiator = try P256PrivateKey(rawRepresentation: [UInt8](hex: vector.i))
        let responder = try P256PrivateKey(rawRepresentation: [UInt8](hex: vector.r))
        #expect(Hex.encode(initiator.publicKey.x963Representation) == "04" + vector.gix + vector.giy)
        let responderPublic = try P256PublicKey(x963Representation: [UInt8](hex: "04" + vector.grx + vector.gry))
        let initiatorPublic = try P256PublicKey(x963Representation: [UInt8](hex: "04" + vector.gix + vector.giy))
        #expect(Hex.encode(try initiator.sharedSecret(with: responderPublic)) == vector.shared_x)
        #expect(Hex.encode(try responder.sharedSecret(with: initiatorPublic)) == vector.shared_x)
        #expect(Hex.encode(try initiator.sharedSecret(with: initiator.publicKey)) != vector.shared_x)
    }

    @Test func ecdsaRoundTripAndNegatives() throws {
        let key = try P256PrivateKey()
        let message = Array("EC_v1".utf8)
        let signature = try key.signature(for: message)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("EC_v2".utf8)))
        var flipped = signature
        flipped[flipped.count - 1] ^= 1
        #expect(!key.publicKey.isValidSignature(flipped, for: message))
        #expect(!(try P256PrivateKey()).publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature([0x30, 0x00], for: message))
    }

    @Test func keyEncodingsRoundTrip() throws {
        let key = try P256PrivateKey()
        let fromPKCS8 = try P256PrivateKey(pemRepresentation: key.pemRepresentation)
        let fromSEC1 = try P256PrivateKey(derRepresentation: key.sec1DERRepresentation)
        let sec1PEM = PEMDocument(label: "EC PRIVATE KEY", derBytes: key.sec1DERRepresentation).pemRepresentation
        let fromSEC1PEM = try P256PrivateKey(pemRepresentation: sec1PEM)
        for copy in [fromPKCS8, fromSEC1, fromSEC1PEM] {
            #expect(copy.publicKey.derRepresentation == key.publicKey.derRepresentation)
        }
        let publicKey = key.publicKey
        #expect(publicKey.derRepresentation.count == 91)
        #expect(try P256PublicKey(derRepresentation: publicKey.derRepresentation).x963Representation == publicKey.x963Representation)
        #expect(try P256PublicKey(pemRepresentation: publicKey.pemRepresentation).derRepresentation == publicKey.derRepresentation)
    }

    @Test func otherCurvesAndKeyTypesAreRefused() throws {
        let rsa = try RSAPrivateKey(pemRepresentation: Fixture.decode(RSATests.SignFile.self, "v3_sign.json").docs_test_key_jsapi.pem)
        #expect(throws: CryptoError.self) { try P256PrivateKey(pemRepresentation: rsa.pemRepresentation) }
        #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: [UInt8](repeating: 4, count: 64)) }
        // A point that is not on the curve.
        #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: [0x04] + [UInt8](repeating: 1, count: 64)) }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) }
    }
}

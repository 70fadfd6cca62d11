import Foundation
import Testing

@testable import CashierCrypto

@Suite struct EncodingTests {
    /// RFC 4648 §10 test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func base64RFC4648(plain: String, encoded: String) throws {
        #expect(Base64.encode(Data(plain.utf8)) == encoded)
        #expect(try Base64.decode(encoded) == Data(plain.utf8))
        #expect(try Base64.decode(encoded.replacingOccurrences(of: "=", with: "")) == Data(plain.utf8))
    }

    @Test func base64URLSafe() throws {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64.encode(bytes, urlSafe: true) == "-_-_")
        #expect(try Base64.decode("-_-_", urlSafe: true) == Data(bytes))
        #expect(Base64.encode([0xFB, 0xFF], urlSafe: true) == "-_8")
        #expect(throws: CryptoError.self) { try Base64.decode("+/+/", urlSafe: true) }
        #expect(throws: CryptoError.self) { try Base64.decode("Zm9v!") }
        #expect(throws: CryptoError.self) { try Base64.decode("Z") }
        #expect(try Base64.decode("Zm9v\nYmFy\r\n") == Data("foobar".utf8))
    }

    /// Padding completes the last group or is absent; `=` appears only at the end; anything
    /// outside the alphabet (other than line breaks and spaces) is refused.
    @Test(arguments: ["Zm9v=", "Zg=", "Zg===", "Zm8==", "Z===", "Zm=9v", "=Zm9v", "Zm9v====", "Zm9vY", "Zm9v\u{0}", "Zm9\u{E9}", "Zm9v*"])
    func base64Refuses(text: String) {
        #expect(throws: CryptoError.self) { try Base64.decodeBytes(text) }
    }

    /// Every length, every byte value, wrapped or not: the decoder agrees with Foundation's.
    @Test func base64AgreesWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString()
            #expect(try Base64.decodeBytes(encoded) == bytes)
            #expect(try Base64.decodeBytes(Data(bytes).base64EncodedString(options: .lineLength64Characters)) == bytes)
            #expect(try Base64.decodeBytes(Base64.encode(bytes, urlSafe: true), urlSafe: true) == bytes)
            #expect(Data(base64Encoded: encoded).map(Array.init) == bytes)
        }
    }

    @Test func hex() throws {
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(Hex.encode([0x00, 0xAB, 0xFF], uppercase: true) == "00ABFF")
        #expect(try Hex.decode("00abFF") == [0x00, 0xAB, 0xFF])
        #expect(try Hex.decode("") == [])
        #expect(throws: CryptoError.self) { try Hex.decode("abc") }
        #expect(throws: CryptoError.self) { try Hex.decode("zz") }
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        // An empty secret matches nothing, not even another empty one (a missing key is not a key).
        #expect(!ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(!ConstantTime.equals("", ""))
        #expect(ConstantTime.equals("9A0A86", "9A0A86"))
        #expect(!ConstantTime.equals("9A0A86", "9a0a86"))
    }

    @Test func pemParsing() throws {
        let document = PEMDocument(label: "TEST", derBytes: Array(0..<100))
        let text = document.pemRepresentation
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 64 })
        #expect(try PEMDocument.parseAll("junk\n" + text + "more junk\n" + text) == [document, document])
        #expect(throws: CryptoError.self) { try PEMDocument.parseAll("-----BEGIN X-----\nAAAA\n") }
        // CRLF lines (UnionPay's signPubKeyCert), and old Mac CR lines: one Character each in Swift.
        #expect(try PEMDocument.parseAll(text.replacingOccurrences(of: "\n", with: "\r\n")) == [document])
        #expect(try PEMDocument.parseAll(text.replacingOccurrences(of: "\n", with: "\r")) == [document])
        let encrypted =
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n"
        let error = #expect(throws: CryptoError.self) { try PEMDocument.parseAll(encrypted) }
        #expect(error?.reason.contains("encrypted") == true)
    }

    @Test func secureRandom() {
        #expect(SecureRandom.bytes(count: 32).count == 32)
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
        let nonce = SecureRandom.alphanumeric(count: 32)
        #expect(nonce.count == 32)
        #expect(nonce.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        let digits = SecureRandom.string(count: 2000, alphabet: "01")
        let ones = digits.filter { $0 == "1" }.count
        #expect((800...1200).contains(ones))  // a fair coin; fails with probability < 1e-40
    }
}

import Foundation
import Testing

@testable import CashierCrypto

@Suite struct AESECBTests {
    struct RefundVector: Decodable {
        let api_key: String
        let aes_key_ascii: String
        let req_info: String
        let plaintext_xml: String
    }

    /// FIPS-197 appendix C.3: one AES-256 block (ECB of one block is the raw cipher).
    @Test func fips197Block() throws {
        let key = [UInt8](hex: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
        let block = [UInt8](hex: "00112233445566778899aabbccddeeff")
        let encrypted = try InsecureAESECB.encrypt(block, key: key)
        // One block of data plus one block of PKCS#7 padding.
        #expect(encrypted.count == 32)
        #expect(Hex.encode(encrypted.prefix(16)) == "8ea2b7ca516745bfeafc49904b496089")
        #expect(try InsecureAESECB.decrypt(encrypted, key: key) == block)
    }

    /// A real WeChat Pay refund notification: key = lower-case hex MD5 of the API key.
    @Test func wechatRefundNotification() throws {
        let vector = try Fixture.decode(RefundVector.self, "v2_refund_notify.json")
        let keyText = Hex.encode(DigestAlgorithm.insecureMD5.hash(vector.api_key))
        #expect(keyText == vector.aes_key_ascii)
        let plaintext = try InsecureAESECB.decrypt(Base64.decode(vector.req_info), key: Array(keyText.utf8))
        #expect(String(decoding: plaintext, as: UTF8.self) == vector.plaintext_xml)
    }

    @Test func wrongKeyOrBadLengthFails() throws {
        let vector = try Fixture.decode(RefundVector.self, "v2_refund_notify.json")
        let wrongKey = Array(Hex.encode(DigestAlgorithm.insecureMD5.hash("not the key")).utf8)
        let error = #expect(throws: CryptoError.self) {
            let plaintext = try InsecureAESECB.decrypt(Base64.decode(vector.req_info), key: wrongKey)
            // Padding can pass by chance (about 1 in 256); the text then is garbage.
            if String(decoding: plaintext, as: UTF8.self) != vector.plaintext_xml {
                throw CryptoError(.authenticationFailure, "garbage")
            }
        }
        #expect(error?.code == .authenticationFailure)
        #expect(throws: CryptoError.self) { try InsecureAESECB.decrypt([UInt8](repeating: 0, count: 15), key: wrongKey) }
        #expect(throws: CryptoError.self) { try InsecureAESECB.decrypt([UInt8](), key: wrongKey) }
        #expect(throws: CryptoError.self) { try InsecureAESECB.encrypt([1], key: [UInt8](repeating: 0, count: 10)) }
    }
}

import Foundation
import Testing

@testable import WeChatPay

@Suite struct V2SignerTests {
    struct SignFile: Decodable {
        struct Example: Decodable {
            let key: String
            let params: [String: String]
            let stringA: String?
            let md5_sign: String
            let hmac_sha256_sign: String?
        }
        let official_example: Example
        let wechatpy_tests: Example
        let computed_app_params: Example
    }

    static func vectors() throws -> SignFile { try Fixture.decode(SignFile.self, "v2_sign.json") }

    @Test func officialExample() throws {
        let example = try Self.vectors().official_example
        let signer = WeChatPay.V2.Signer(apiKey: example.key)
        #expect(WeChatPay.V2.Signer.canonicalString(example.params.map { (key: $0.key, value: $0.value) }) == example.stringA)
        #expect(signer.signature(for: example.params, type: .md5) == example.md5_sign)
        #expect(signer.signature(for: example.params, type: .hmacSHA256) == example.hmac_sha256_sign)
    }

    @Test func wechatpyVectors() throws {
        let example = try Self.vectors().wechatpy_tests
        let signer = WeChatPay.V2.Signer(apiKey: example.key)
        #expect(signer.signature(for: example.params, type: .md5) == example.md5_sign)
        #expect(signer.signature(for: example.params, type: .hmacSHA256) == example.hmac_sha256_sign)
    }

    @Test func appParametersMatchTheComputedVector() throws {
        let example = try Self.vectors().computed_app_params
        let merchant = WeChatPay.V2.Merchant(appID: example.params["appid"]!, mchID: example.params["partnerid"]!, apiKey: example.key)
        let parameters = WeChatPay.V2.AppPayParameters(
            prepayID: example.params["prepayid"]!, merchant: merchant, nonce: example.params["noncestr"]!,
            timestamp: Date(timeIntervalSince1970: Double(example.params["timestamp"]!)!))
        #expect(parameters.sign == example.md5_sign)
        #expect(parameters.package == "Sign=WXPay")
        #expect(parameters.timestamp == "1414561699")
        // The fields the server hands the app: the JSON form's, the signed vector's.
        #expect(parameters.fields == (try Self.jsonFields(parameters)))
        var signed = example.params
        signed["sign"] = example.md5_sign
        #expect(parameters.fields == signed)
        let jsapi = WeChatPay.V2.JSAPIParameters(prepayID: "wx201410272009395522657a690389285100", merchant: merchant)
        #expect(jsapi.fields == (try Self.jsonFields(jsapi)) && jsapi.fields.count == 6)
    }

    /// `value`'s JSON form as a dictionary of strings.
    static func jsonFields(_ value: some Encodable) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: JSONEncoder().encode(value))
    }

    @Test func rules() throws {
        let example = try Self.vectors().official_example
        let signer = WeChatPay.V2.Signer(apiKey: example.key)
        let base = signer.signature(for: example.params, type: .md5)
        // `sign` and empty values do not count.
        var extra = example.params
        extra["sign"] = "ANYTHING"
        extra["attach"] = ""
        #expect(signer.signature(for: extra, type: .md5) == base)
        // Unknown extension fields do count.
        extra["sub_mch_id"] = "1"
        #expect(signer.signature(for: extra, type: .md5) != base)
        // Names are case-sensitive and sorted by ASCII: upper case before lower case.
        #expect(
            WeChatPay.V2.Signer.canonicalString([
                (key: "b", value: "1"), (key: "B", value: "2"), (key: "a_", value: "3"), (key: "a", value: "4"),
            ]) == "B=2&a=4&a_=3&b=1")
        // Values are used raw, not URL-encoded.
        #expect(WeChatPay.V2.Signer.canonicalString([(key: "body", value: "a&b=c 支付")]) == "body=a&b=c 支付")
    }

    @Test func verification() throws {
        let example = try Self.vectors().official_example
        let signer = WeChatPay.V2.Signer(apiKey: example.key)
        let pairs = example.params.map { (key: $0.key, value: $0.value) }
        #expect(signer.isValidSignature(example.md5_sign, for: pairs, type: .md5))
        #expect(!signer.isValidSignature(example.md5_sign.lowercased(), for: pairs, type: .md5))
        #expect(!signer.isValidSignature(example.md5_sign, for: pairs, type: .hmacSHA256))
        #expect(!WeChatPay.V2.Signer(apiKey: "wrong").isValidSignature(example.md5_sign, for: pairs, type: .md5))
        #expect(!signer.isValidSignature("", for: pairs, type: .md5))
    }

    @Test func signTypeParsing() {
        #expect(WeChatPay.V2.SignType(field: "MD5") == .md5)
        #expect(WeChatPay.V2.SignType(field: "hmac-sha256") == .hmacSHA256)
        #expect(WeChatPay.V2.SignType(field: "RSA") == nil)
    }
}

import Foundation
import Testing
import WeChatPay

@Suite struct WeChatCommandTests {
    static func vector(_ name: String) throws -> [String: Any] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors"))
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func signPrintsTheDocumentedSignatures() async throws {
        let example = try #require(try Self.vector("v2_sign.json")["official_example"] as? [String: Any])
        let params = try #require(example["params"] as? [String: String])
        let input = String(decoding: try JSONSerialization.data(withJSONObject: params), as: UTF8.self)
        let md5 = await CapturedIO.run(
            ["wechat", "sign", "--key-file", CapturedIO.secretFile("192006250b4c09247ec02edce69f6a2d")], stdin: input)
        #expect(md5.status == 0)
        #expect(md5.stdout == "\(example["md5_sign"]!)\n")
        let hmac = await CapturedIO.run(
            ["wechat", "sign", "--key-file", CapturedIO.secretFile("192006250b4c09247ec02edce69f6a2d"), "--sign-type", "HMAC-SHA256"],
            stdin: input)
        #expect(hmac.stdout == "\(example["hmac_sha256_sign"]!)\n")
        // Integers are signed as their decimal text.
        let numeric = await CapturedIO.run(
            ["wechat", "sign", "--key-file", CapturedIO.secretFile("192006250b4c09247ec02edce69f6a2d")],
            stdin: input.replacingOccurrences(of: #""mch_id":"10000100""#, with: #""mch_id":10000100"#))
        #expect(numeric.stdout == md5.stdout)
        let bad = await CapturedIO.run(["wechat", "sign", "--key-file", CapturedIO.secretFile("k"), "--sign-type", "RSA"], stdin: input)
        #expect(bad.status == 2)
        let notJSON = await CapturedIO.run(["wechat", "sign", "--key-file", CapturedIO.secretFile("k")], stdin: "[1,2]")
        #expect(notJSON.status == 1)
        #expect(notJSON.stderr.contains("JSON object"))
        let float = await CapturedIO.run(["wechat", "sign", "--key-file", CapturedIO.secretFile("k")], stdin: #"{"total_fee": 0.01}"#)
        #expect(float.status == 1)
    }

    @Test func aRefusedParameterListIsNamed() async throws {
        func sign(_ input: String) async -> (status: Int32, stdout: String, stderr: String) {
            await CapturedIO.run(["wechat", "sign", "--key-file", CapturedIO.secretFile("k")], stdin: input)
        }
        let kinds = await sign(#"{"body":"Tee","total_fee":25.5,"attach":null,"detail":[1],"scene_info":{"id":1}}"#)
        #expect(kinds.status == 1)
        #expect(kinds.stdout.isEmpty)
        for words in [
            #""total_fee" is a number that is not an integer"#, #""attach" is null"#, #""detail" is an array"#,
            #""scene_info" is an object"#,
        ] {
            #expect(kinds.stderr.contains(words), "\(words) in \(kinds.stderr)")
        }
        #expect(!kinds.stderr.contains(#""body""#))
        let empty = await sign("\n")
        #expect(empty.stderr.contains("stdin is empty"))
        let broken = await sign("{\n  \"body\": \"Tee\"\n  \"attach\": 1}")
        #expect(broken.stderr.contains("stdin is not valid JSON"))
        #expect(broken.stderr.contains("line 3"))
        let array = await sign("[1]")
        #expect(array.stderr.contains("not an object"))
        // Booleans are signed as their text, as before.
        let boolean = await sign(#"{"a":true}"#)
        let text = await sign(#"{"a":"true"}"#)
        #expect(boolean.status == 0)
        #expect(boolean.stdout == text.stdout)
    }

    @Test func verifyNotifyAcceptsGenuineAndRefusesTampered() async throws {
        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")
        var fields: [(String, String)] = [
            ("return_code", "SUCCESS"), ("result_code", "SUCCESS"), ("appid", merchant.appID), ("mch_id", merchant.mchID),
            ("out_trade_no", "T1"), ("total_fee", "100"), ("nonce_str", "abc"),
        ]
        fields.append(("sign", merchant.signer.signature(for: fields.map { (key: $0.0, value: $0.1) }, type: .md5)))
        let xml = WeChatPay.V2.XMLDocument(fields).xmlString
        let ok = await CapturedIO.run(
            ["wechat", "verify-notify", "--key-file", CapturedIO.secretFile(merchant.apiKey), "--appid", merchant.appID], stdin: xml)
        #expect(ok.status == 0)
        let printed = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: String]
        #expect(printed?["total_fee"] == "100")
        #expect(printed?["out_trade_no"] == "T1")
        let tampered = await CapturedIO.run(
            ["wechat", "verify-notify", "--key-file", CapturedIO.secretFile(merchant.apiKey)],
            stdin: xml.replacingOccurrences(of: "[100]", with: "[1]"))
        #expect(tampered.status == 1)
        #expect(tampered.stdout.isEmpty)
        #expect(tampered.stderr.split(separator: "\n").count == 1)
        #expect(tampered.stderr.contains("signature does not verify"))
        let wrongApp = await CapturedIO.run(
            ["wechat", "verify-notify", "--key-file", CapturedIO.secretFile(merchant.apiKey), "--appid", "wx0"], stdin: xml)
        #expect(wrongApp.status == 1)
        let xxe = await CapturedIO.run(
            ["wechat", "verify-notify", "--key-file", CapturedIO.secretFile(merchant.apiKey)],
            stdin: #"<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><xml><a>&e;</a></xml>"#)
        #expect(xxe.status == 1)
        #expect(xxe.stderr.contains("DOCTYPE"))
        #expect(!xxe.stderr.contains(merchant.apiKey))
    }

    @Test func decryptRefund() async throws {
        let vector = try Self.vector("v2_refund_notify.json")
        let result = await CapturedIO.run(
            ["wechat", "decrypt-refund", "--key-file", CapturedIO.secretFile("\(vector["api_key"]!)")], stdin: "\(vector["req_info"]!)\n")
        #expect(result.status == 0)
        let fields = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(fields?["out_refund_no"] == "50fd012ed1b311e7af7800163e32c503")
        #expect(fields?["refund_recv_accout"] == "支付用户零钱")
        let wrong = await CapturedIO.run(
            ["wechat", "decrypt-refund", "--key-file", CapturedIO.secretFile("wrong")], stdin: "\(vector["req_info"]!)")
        #expect(wrong.status == 1)
    }

    @Test func v3VerifyNotify() async throws {
        let notify = try #require(try Self.vector("v3_notify.json")["wechatpay_go_notify"] as? [String: Any])
        let headers = try #require(notify["headers"] as? [String: String])
        func run(now: String, cert: String = "\(notify["platform_cert_pem"]!)", body: String = "\(notify["body"]!)") async -> (
            Int32, String, String
        ) {
            let result = await CapturedIO.run(
                [
                    "wechat", "v3", "verify-notify", "--api-v3-key-file", CapturedIO.secretFile("\(notify["apiv3_key"]!)"),
                    "--platform-cert", cert,
                    "--serial", headers["Wechatpay-Serial"]!, "--timestamp", headers["Wechatpay-Timestamp"]!, "--nonce",
                    headers["Wechatpay-Nonce"]!,
                    "--signature", headers["Wechatpay-Signature"]!, "--now", now,
                ], stdin: body)
            return (result.status, result.stdout, result.stderr)
        }
        let ok = await run(now: "1624523900")
        #expect(ok.0 == 0)
        #expect(ok.1 == "\(notify["expected_plaintext"]!)\n")
        let replay = await run(now: "1624530000")
        #expect(replay.0 == 1)
        #expect(replay.2.contains("window"))
        let tampered = await run(now: "1624523900", body: "\(notify["body"]!)".replacingOccurrences(of: "payscore", with: "payscorf"))
        #expect(tampered.0 == 1)
        let unreadable = await run(now: "1624523900", cert: "/nonexistent.pem")
        #expect(unreadable.0 == 2)
        let neither = await CapturedIO.run(
            [
                "wechat", "v3", "verify-notify", "--api-v3-key-file", CapturedIO.secretFile("k"), "--serial", "s", "--timestamp", "1",
                "--nonce", "n", "--signature", "s",
            ])
        #expect(neither.status == 2)
    }
}

import Alipay
import CashierCrypto
import Foundation
import TestSupport
import Testing

@Suite struct AlipayCommandTests {
    static func vectors() throws -> [String: Any] {
        let url = try #require(Bundle.module.url(forResource: "alipay_real_signed.json", withExtension: nil, subdirectory: "Vectors"))
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func verifyNotifyAndResultOnRealMessages() async throws {
        let trade = try #require(try Self.vectors()["notify_trade_status_sync"] as? [String: Any])
        let pem = try #require(trade["alipay_public_key_pem"] as? String)
        let bare = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let params = try #require(trade["params"] as? [String: String])
        let body = Alipay.FormBody.encode(params.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let ok = await CapturedIO.run(["alipay", "verify-notify", "--public-key", bare], stdin: body)
        #expect(ok.status == 0)
        let printed = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: String]
        #expect(printed?["trade_status"] == "TRADE_SUCCESS")
        let tampered = await CapturedIO.run(
            ["alipay", "verify-notify", "--public-key", bare],
            stdin: body.replacingOccurrences(of: "total_amount=0.10", with: "total_amount=9.10"))
        #expect(tampered.status == 1)
        #expect(tampered.stderr.contains("does not verify"))

        let sync = try #require(try Self.vectors()["sync_response"] as? [String: Any])
        let result = await CapturedIO.run(
            ["alipay", "verify-result", "--public-key", "\(sync["alipay_public_key_pem"]!)"], stdin: "\(sync["raw_response"]!)")
        // The sync vector is a file-upload answer, not an app-pay result: the node is missing.
        #expect(result.status == 1)
        #expect(result.stderr.contains("alipay_trade_app_pay_response"))
    }

    @Test func signAndOrderString() async throws {
        let key = TestKeys.rsa(0)
        let bareKey = Base64.encode(key.pkcs1DERRepresentation)  // the console's form
        let signed = await CapturedIO.run(
            ["alipay", "sign", "--private-key-file", CapturedIO.secretFile(bareKey)],
            stdin: #"{"app_id":"2021000000000000","method":"alipay.trade.query","sign_type":"RSA2"}"#)
        #expect(signed.status == 0)
        let content = "app_id=2021000000000000&method=alipay.trade.query&sign_type=RSA2"
        #expect(
            Alipay.Signer.isValidSignature(
                signed.stdout.trimmingCharacters(in: .newlines), content: content, publicKey: key.publicKey, type: .rsa2))
        let order = await CapturedIO.run(
            [
                "alipay", "order-string", "--app-id", "2021000000000000", "--private-key-file",
                CapturedIO.secretFile(key.pemRepresentation), "--notify-url",
                "https://shop.example/n",
            ],
            stdin: #"{"out_trade_no":"C1","total_amount":"0.01","subject":"test"}"#)
        #expect(order.status == 0)
        let fields = try Alipay.FormBody.parse(Array(order.stdout.trimmingCharacters(in: .newlines).utf8))
        #expect(fields["notify_url"] == "https://shop.example/n")
        #expect(
            Alipay.Signer.isValidSignature(
                fields["sign"] ?? "", content: Alipay.Signer.content(fields), publicKey: key.publicKey, type: .rsa2))
        let notJSON = await CapturedIO.run(
            [
                "alipay", "order-string", "--app-id", "1", "--private-key-file", CapturedIO.secretFile(key.pemRepresentation),
                "--notify-url", "u",
            ], stdin: "nope")
        #expect(notJSON.status == 1)
        let badKey = await CapturedIO.run(["alipay", "sign", "--private-key-file", CapturedIO.secretFile("not a key")], stdin: "{}")
        #expect(badKey.status == 2)
    }
}

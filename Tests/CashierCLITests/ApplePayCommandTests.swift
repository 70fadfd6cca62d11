import Foundation
import TestSupport
import Testing

/// `cashier applepay decrypt` on the real gala-2014 token and `mint` → `decrypt` round trips.
@Suite struct ApplePayCommandTests {
    static func vector(_ name: String) throws -> String {
        try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors")).path
    }

    @Test func decryptsGalaAtItsTimeAndNamesTheFailedCheckOtherwise() async throws {
        let common = [
            "applepay", "decrypt", "--token", try Self.vector("gala-2014-token.json"), "--merchant-key-file",
            try Self.vector("gala-2014-private_key.pem"), "--merchant-cert", try Self.vector("gala-2014-certificate.pem"),
        ]
        let ok = await CapturedIO.run(common + ["--at", "2014-10-27T19:52:00Z"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let payload = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        #expect(payload?["applicationPrimaryAccountNumber"] as? String == "4109370251004320")
        #expect(payload?["transactionAmount"] as? Int == 100)
        let today = await CapturedIO.run(common)
        #expect(today.status == 1 && today.stderr.contains("chain:") && today.stderr.split(separator: "\n").count == 1)
        let late = await CapturedIO.run(common + ["--at", "2014-10-27T20:52:00Z", "--window", "60"])
        #expect(late.status == 1 && late.stderr.contains("signing time:"))
        let bound = await CapturedIO.run(common + ["--at", "2014-10-27T19:52:00Z", "--application-data", "00ff"])
        #expect(bound.status == 1 && bound.stderr.contains("applicationData:"))
        let badFlag = await CapturedIO.run(common + ["--at", "yesterday"])
        #expect(badFlag.status == 2)
    }

    @Test(arguments: [false, true])
    func mintThenDecrypt(rsa: Bool) async throws {
        let folder = Scratch.url("applepay-mint-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let minted = await CapturedIO.runSandbox(
            ["applepay", "mint", "--out", folder, "--amount", "12.75", "--currency", "USD", "--application-data", "6f72646572"]
                + (rsa ? ["--rsa"] : []))
        #expect(minted.status == 0, "\(minted.stderr)")
        let decrypt = [
            "applepay", "decrypt", "--token", "\(folder)/token.json", "--merchant-key-file", "\(folder)/merchant-key.pem",
            "--merchant-cert",
            "\(folder)/merchant-cert.pem",
        ]
        let ok = await CapturedIO.run(decrypt + ["--root-ca", "\(folder)/root-ca.pem", "--application-data", "6f72646572"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let payload = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        #expect(payload?["transactionAmount"] as? Int == 1275 && payload?["currencyCode"] as? String == "840")
        // Without the sandbox root the chain ends nowhere Apple's.
        let untrusted = await CapturedIO.run(decrypt)
        #expect(untrusted.status == 1 && untrusted.stderr.contains("chain:"))
    }

    @Test func mintRefusesANegativeAmountAndWritesNothing() async throws {
        let folder = Scratch.url("applepay-mint-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let minted = await CapturedIO.runSandbox(["applepay", "mint", "--out", folder, "--amount", "-1.00"])
        #expect(minted.status == 2)
        #expect(minted.stderr.contains("--amount must not be negative"))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func requestChecksTheRules() async throws {
        let good = """
            {"countryCode":"CN","currencyCode":"CNY","supportedNetworks":["chinaUnionPay","visa"],
             "merchantCapabilities":["supports3DS","supportsEMV"],"total":{"label":"Example Coffee Co.","amount":"46.00"},
             "lineItems":[{"label":"Latte ×2","amount":"51.00"},{"label":"Coupon","amount":"-5.00"}]}
            """
        let ok = await CapturedIO.run(["applepay", "request"], stdin: good)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains(#""total":{"amount":"46.00","label":"Example Coffee Co.","type":"final"}"#))
        let wrongTotal = await CapturedIO.run(["applepay", "request"], stdin: good.replacingOccurrences(of: "46.00", with: "45.00"))
        #expect(wrongTotal.status == 1 && wrongTotal.stderr.contains("not the sum of the line items"))
        let noEMV = await CapturedIO.run(["applepay", "request"], stdin: good.replacingOccurrences(of: #","supportsEMV""#, with: ""))
        #expect(noEMV.status == 1 && noEMV.stderr.contains("supportsEMV"))
        let unknown = await CapturedIO.run(["applepay", "request"], stdin: good.replacingOccurrences(of: "\"visa\"", with: "\"diners\""))
        #expect(unknown.status == 1 && unknown.stderr.contains("diners"))
    }
}

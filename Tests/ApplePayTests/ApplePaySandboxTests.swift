import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Testing

/// The sandbox's Apple Pay endpoints over a real socket: register a processing certificate,
/// mint a token, decrypt it trusting only the sandbox root the sandbox serves.
@Suite struct ApplePaySandboxTests {
    func send(_ method: String, _ url: URL, _ body: Data = Data()) async throws -> (Int, Data) {
        let response = try await URLSessionTransport().send(HTTPRequest(method: method, url: url, body: body))
        return (response.status, response.body)
    }

    @Test func mintOnRequestAndDecrypt() async throws {
        let sandbox = SandboxServer(wechatMerchants: [])
        try sandbox.start()
        let base = sandbox.baseURL
        let tokenURL = base.appendingPathComponent("sandbox/applepay/token")
        let (noMerchant, _) = try await send("POST", tokenURL, Data(#"{"amount":"1.00"}"#.utf8))
        #expect(noMerchant == 409)

        let merchant = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.shop")
        let (registered, hashBody) = try await send(
            "POST", base.appendingPathComponent("sandbox/applepay/merchants"), Data(merchant.certificate.pemRepresentation.utf8))
        #expect(registered == 201)
        #expect((try JSONSerialization.jsonObject(with: hashBody) as? [String: String])?["public_key_hash"] == merchant.publicKeyHash)
        let (badCertificate, _) = try await send("POST", base.appendingPathComponent("sandbox/applepay/merchants"), Data("nope".utf8))
        #expect(badCertificate == 400)

        let (rootStatus, rootPEM) = try await send("GET", base.appendingPathComponent("sandbox/applepay/root.pem"))
        #expect(rootStatus == 200)
        let root = try X509Certificate(pemRepresentation: String(decoding: rootPEM, as: UTF8.self))
        let (minted, payment) = try await send(
            "POST", tokenURL, Data(#"{"amount":"46.00","currency":"CNY","application_data":"6f72645f3432","card":"4000000000009995"}"#.utf8)
        )
        #expect(minted == 200)
        let token = try ApplePay.PaymentToken(json: payment)
        #expect(token.transactionIdentifier != nil && token.network == "Visa")
        let decrypter = ApplePay.TokenDecrypter(merchantKeys: [merchant], verifier: try ApplePay.TokenVerifier(trustAnchors: [root]))
        let decrypted = try decrypter.decrypt(token, applicationData: Array("ord_42".utf8))
        try decrypted.check(total: Money(minorUnits: 4600, currency: .cny))
        // The magic card declines in the sandbox processor.
        let decision = try ApplePay.SandboxProcessor.decide(decrypted, amount: Money(minorUnits: 4600, currency: .cny), now: Date())
        #expect(decision == .declined(.insufficientFunds, message: "Insufficient funds."))
        // Apple's real root does not vouch for sandbox tokens.
        let strict = ApplePay.TokenDecrypter(merchantKeys: [merchant], verifier: try ApplePay.TokenVerifier())
        #expect((#expect(throws: PaymentError.self) { try strict.decrypt(token) })?.details == "chain")
        let (badAmount, _) = try await send("POST", tokenURL, Data(#"{"amount":"1.001","currency":"CNY"}"#.utf8))
        #expect(badAmount == 400)
        let (negative, negativeBody) = try await send("POST", tokenURL, Data(#"{"amount":"-1.00","currency":"CNY"}"#.utf8))
        #expect(negative == 400 && String(decoding: negativeBody, as: UTF8.self).contains("not negative"))
        await sandbox.stop()
    }
}

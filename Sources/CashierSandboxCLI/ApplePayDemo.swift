import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation

/// The Apple Pay part of `cashier-sandbox demo`: a request checked, a token minted by the sandbox's test
/// CA, verified, decrypted and authorised by the sandbox processor; a tampered one refused.
enum ApplePayDemo {
    static func run(_ step: WeChatDemo.Step) async {
        await step("Apple Pay request") {
            let request = try ApplePay.PaymentRequest(
                merchantIdentifier: "merchant.com.example.demo", countryCode: CountryCode(alpha2: "CN"),
                items: [
                    try LineItem(label: "Latte", unitAmount: Money(decimal: "25.50", currency: .cny), quantity: 2),
                    try LineItem(label: "Coupon", unitAmount: Money(decimal: "-5.00", currency: .cny)),
                ], totalLabel: "Example Coffee Co.", supportedNetworks: [.chinaUnionPay, .visa],
                merchantCapabilities: [.supports3DS, .supportsEMV])
            return ("total \(try request.total), 3DS + EMV, Apple Pay JS JSON", try request.total.minorUnits == 4600)
        }
        await step("Apple Pay token → authorised") {
            let ca = try ApplePayTestCA()
            let merchant = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.demo")
            let total = Money(minorUnits: 4600, currency: .cny)
            let token = try ApplePayTokenMinter(ca: ca).mint(for: merchant, amount: total, applicationData: Array("ord_demo".utf8))
            let decrypter = ApplePay.TokenDecrypter(merchantKeys: [merchant], verifier: try ApplePay.TokenVerifier(trustAnchors: [ca.root]))
            let payment = try decrypter.decrypt(token, applicationData: Array("ord_demo".utf8))
            try payment.check(total: total)
            let decision = try await ApplePay.SandboxProcessor().authorize(
                ApplePay.ProcessorAuthorization(
                    amount: total, reference: "ord_demo", idempotencyKey: "demo_authorize", token: token, decrypted: payment))
            var tampered = token
            tampered.header.transactionId = String(repeating: "0", count: 64)
            let refused = (try? decrypter.decrypt(tampered)) == nil
            return ("EC_v1 \(payment.description); tampered token refused: \(refused)", decision.status == .success && refused)
        }
    }
}

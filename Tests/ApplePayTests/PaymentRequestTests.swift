import ApplePay
import Cashier
import CashierSandbox
import Foundation
import Testing

/// Payment requests: every rule with its error, the Apple Pay JS JSON both ways, and updates.
@Suite struct PaymentRequestTests {
    static let china = try! CountryCode(alpha2: "CN")
    static func yuan(_ text: String) -> Money { try! Money(decimal: text, currency: .cny) }
    static let latte = try! LineItem(label: "Latte", unitAmount: yuan("25.50"), quantity: 2)
    static let coupon = try! LineItem(label: "Coupon", unitAmount: yuan("-5.00"))
    static let standard = try! ShippingMethod(identifier: "standard", label: "Standard", detail: "3–5 days", amount: yuan("0.00"))
    static let express = try! ShippingMethod(identifier: "express", label: "Express", detail: "Tomorrow", amount: yuan("12.00"))

    static func request(
        networks: [ApplePay.PaymentRequest.Network] = [.chinaUnionPay, .visa, .masterCard],
        capabilities: [ApplePay.PaymentRequest.Capability] = [.supports3DS, .supportsEMV], methods: [ShippingMethod] = [standard, express],
        items: [LineItem] = [latte, coupon]
    ) throws -> ApplePay.PaymentRequest {
        try ApplePay.PaymentRequest(
            merchantIdentifier: "merchant.com.example.coffee", countryCode: china, items: items, totalLabel: "Example Coffee Co.",
            supportedNetworks: networks, merchantCapabilities: capabilities, shippingMethods: methods,
            requiredShippingContactFields: [.postalAddress, .phone], applicationData: Array("ord_42".utf8))
    }

    @Test func summaryAndJSON() throws {
        let request = try Self.request()
        #expect(try request.total == Self.yuan("46.00"))
        let object = try request.jsonObject()
        #expect(object["countryCode"] as? String == "CN" && object["currencyCode"] as? String == "CNY")
        #expect(object["supportedNetworks"] as? [String] == ["chinaUnionPay", "visa", "masterCard"])
        let total = object["total"] as? [String: String]
        #expect(total == ["label": "Example Coffee Co.", "amount": "46.00", "type": "final"])
        let lines = object["lineItems"] as? [[String: String]]
        #expect(lines?.map { $0["amount"] ?? "" } == ["51.00", "-5.00", "0.00"])
        #expect((object["shippingMethods"] as? [[String: String]])?.first?["identifier"] == "standard")
        // Read back as a browser would send it: the same request.
        let parsed = try ApplePay.PaymentRequest(json: try request.jsonData())
        #expect(try parsed.total == Self.yuan("46.00") && parsed.supportedNetworks == request.supportedNetworks)
        #expect(parsed.applicationData == Array("ord_42".utf8))
    }

    @Test func everyRuleHasAClearError() throws {
        func refused(_ body: () throws -> Any) -> String {
            (#expect(throws: PaymentError.self) { _ = try body() })?.message ?? ""
        }
        #expect(refused { try Self.request(networks: []) }.contains("supportedNetworks"))
        #expect(refused { try Self.request(capabilities: [.supportsEMV]) }.contains("supports3DS"))
        #expect(refused { try Self.request(capabilities: [.supports3DS]) }.contains("supportsEMV"))
        #expect(refused { try Self.request(methods: [Self.standard, Self.standard]) }.contains("used twice"))
        let dollars = try ShippingMethod(
            identifier: "usd", label: "USD", amount: Money(minorUnits: 100, currency: try Currency(code: "USD")))
        #expect(refused { try Self.request(methods: [dollars]) }.contains("USD"))
        let dollarItem = try LineItem(label: "Tea", unitAmount: Money(minorUnits: 100, currency: try Currency(code: "USD")))
        #expect(refused { try Self.request(items: [Self.latte, dollarItem]) }.contains("USD"))
        let bigCoupon = try LineItem(label: "Coupon", unitAmount: Self.yuan("-100.00"))
        #expect(refused { try Self.request(items: [Self.latte, bigCoupon]) }.contains("negative"))

        let good = try JSONSerialization.jsonObject(with: try Self.request().jsonData()) as! [String: Any]
        func refusedJSON(_ change: (inout [String: Any]) -> Void) -> String {
            var object = good
            change(&object)
            return refused { try ApplePay.PaymentRequest(json: try JSONSerialization.data(withJSONObject: object)) }
        }
        #expect(refusedJSON { $0["supportedNetworks"] = ["visa", "diners"] }.contains("unknown value 'diners'"))
        #expect(refusedJSON { $0["countryCode"] = "XX" }.contains("countryCode"))
        #expect(refusedJSON { $0["currencyCode"] = "ABC" }.contains("currencyCode"))
        #expect(refusedJSON { $0["total"] = ["label": "Example Coffee Co.", "amount": "45.99"] }.contains("not the sum"))
        #expect(refusedJSON { $0["total"] = ["label": "Example Coffee Co.", "amount": "46.001"] }.contains("total.amount"))
        #expect(refusedJSON { $0["merchantCapabilities"] = ["supportsEMV"] }.contains("supports3DS"))
    }

    @Test func shippingUpdatesRecomputeTheSummary() throws {
        var request = try Self.request()
        let express = try request.selectShippingMethod("express")
        #expect(express.summary.total == Self.yuan("58.00"))
        let json = express.jsonObject()
        #expect((json["newTotal"] as? [String: String])?["amount"] == "58.00")
        #expect(throws: PaymentError.self) { _ = try request.selectShippingMethod("teleport") }
        // A new address: only standard reaches it, so the express choice falls back to it.
        let moved = try request.updateShippingContact(availableMethods: [Self.standard])
        #expect(moved.summary.total == Self.yuan("46.00") && moved.shippingMethods?.map(\.identifier) == ["standard"])
        // No method reaches it: the sheet shows addressUnserviceable and the summary stays.
        let nowhere = try request.updateShippingContact(availableMethods: [])
        #expect(nowhere.errors.map(\.code) == [.addressUnserviceable])
        #expect(((nowhere.jsonObject()["errors"] as? [[String: String]])?.first)?["code"] == "addressUnserviceable")
        #expect(try request.total == Self.yuan("46.00"))
    }

    @Test func sandboxProcessorMagicValues() async throws {
        func payment(_ pan: String = "4111111111111111", amount: Int64, expiry: String = "291231") -> ApplePay.DecryptedPayment {
            ApplePay.DecryptedPayment(
                applicationPrimaryAccountNumber: pan, applicationExpirationDate: expiry, currencyCode: "156", transactionAmount: amount,
                deviceManufacturerIdentifier: "040010030273", paymentDataType: "3DSecure",
                paymentData: .init(onlinePaymentCryptogram: "AA=="))
        }
        func decide(_ payment: ApplePay.DecryptedPayment) async throws -> ApplePay.ProcessorDecision {
            try ApplePay.SandboxProcessor.decide(payment, amount: Money(minorUnits: payment.transactionAmount, currency: .cny), now: Date())
        }
        #expect(try await decide(payment(amount: 4600)).status == .success)
        #expect(try await decide(payment("4000000000000002", amount: 4600)).status == .failure)
        #expect(
            try await decide(payment("4000000000009995", amount: 4600)) == .declined(.insufficientFunds, message: "Insufficient funds."))
        #expect(try await decide(payment(amount: 4600, expiry: "200101")) == .declined(.expiredCard, message: "The card has expired."))
        #expect(try await decide(payment(amount: 4652)).status == .invalidBillingPostalAddress)
        #expect(try await decide(payment(amount: 4653)).status == .invalidShippingPostalAddress)
        #expect(try await decide(payment(amount: 4654)).status == .invalidShippingContact)
        #expect(try await decide(payment(amount: 4655)).status == .pinRequired)
        let result = try await decide(payment(amount: 4652)).authorizationResultJSON()
        #expect(result["status"] as? Int == 2 && ((result["errors"] as? [[String: String]])?.first)?["code"] == "billingContactInvalid")
        let down = await #expect(throws: PaymentError.self) { _ = try await decide(payment(amount: 4699)) }
        #expect(down?.code == .transport)
        // The token's amount must be the order's.
        let mismatch = #expect(throws: PaymentError.self) {
            _ = try ApplePay.SandboxProcessor.decide(payment(amount: 4600), amount: Self.yuan("46.01"), now: Date())
        }
        #expect(mismatch?.code == .amountMismatch)
    }
}

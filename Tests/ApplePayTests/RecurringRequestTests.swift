import ApplePay
import Cashier
import Foundation
import Testing

/// The recurring payment request a server hands the app (`recurringPaymentRequest`,
/// `PKRecurringPaymentRequest`) built with the public initialisers, read back as the app reads
/// it, refused where Apple Pay's rules are broken; and a merchant token's identifier read from a
/// decrypted token.
@Suite struct RecurringRequestTests {
    static func usd(_ text: String) -> Money { try! Money(decimal: text, currency: .usd) }

    static func request() throws -> ApplePay.PaymentRequest {
        try ApplePay.PaymentRequest(
            merchantIdentifier: "merchant.com.example.pro", countryCode: try CountryCode(alpha2: "US"),
            items: [try LineItem(label: "Example Pro", unitAmount: usd("9.90"))], totalLabel: "Example Co.", supportedNetworks: [.visa])
    }

    @Test func aSubscriptionIsSentAndReadBack() throws {
        var request = try Self.request()
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let recurring = ApplePay.Commitment.Recurring(
            paymentDescription: "Example Pro",
            regularBilling: .init(label: "Monthly", amount: Self.usd("9.90"), intervalUnit: .month, intervalCount: 1, startDate: start),
            managementURL: URL(string: "https://example.com/account")!,
            billingAgreement: "Cancel any time.", tokenNotificationURL: URL(string: "https://example.com/apple/tokens")!)
        try request.commit(to: .recurring(recurring))
        let object = try request.jsonObject()
        let sent = try #require(object["recurringPaymentRequest"] as? [String: Any])
        #expect(sent["paymentDescription"] as? String == "Example Pro" && sent["billingAgreement"] as? String == "Cancel any time.")
        #expect(sent["managementURL"] as? String == "https://example.com/account")
        #expect(sent["tokenNotificationURL"] as? String == "https://example.com/apple/tokens")
        let billing = try #require(sent["regularBilling"] as? [String: Any])
        #expect(billing["label"] as? String == "Monthly" && billing["amount"] as? String == "9.90")
        #expect(billing["paymentTiming"] as? String == "recurring" && billing["recurringPaymentIntervalUnit"] as? String == "month")
        #expect(billing["recurringPaymentIntervalCount"] as? Int == 1)
        #expect(billing["recurringPaymentStartDate"] as? String == ISO8601DateFormatter().string(from: start))
        // What the app reads is what was built.
        #expect(try ApplePay.Commitment(json: object, currency: .usd) == .recurring(recurring))
    }

    @Test func aSubscriptionInAnotherCurrencyIsRefused() throws {
        var request = try Self.request()
        let yuan = try Money(decimal: "9.90", currency: .cny)
        let recurring = ApplePay.Commitment.Recurring(
            paymentDescription: "Example Pro", regularBilling: .init(label: "Monthly", amount: yuan, intervalUnit: .month),
            managementURL: URL(string: "https://example.com/account")!)
        let error = #expect(throws: PaymentError.self) { try request.commit(to: .recurring(recurring)) }
        #expect(error?.message.contains("CNY") == true)
        #expect(request.commitment == nil)
    }

    @Test(arguments: [
        (#"{"paymentDescription":"P","managementURL":"https://e.com/a"}"#, "regularBilling"),
        (
            #"{"paymentDescription":"P","managementURL":"http://e.com/a","regularBilling":{"label":"M","amount":"1.00"}}"#,
            "https"
        ),
        (
            #"{"paymentDescription":"P","managementURL":"https://e.com/a","regularBilling":{"label":"M","amount":"1.00","recurringPaymentIntervalUnit":"week"}}"#,
            "recurringPaymentIntervalUnit"
        ),
        (
            #"{"paymentDescription":"P","managementURL":"https://e.com/a","regularBilling":{"label":"M","amount":"1.00","recurringPaymentIntervalCount":0}}"#,
            "recurringPaymentIntervalCount"
        ),
    ])
    func aBrokenSubscriptionIsRefusedNamingTheField(_ json: String, _ field: String) throws {
        let inner = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let error = #expect(throws: PaymentError.self) {
            try ApplePay.Commitment(json: ["recurringPaymentRequest": inner], currency: .usd)
        }
        #expect(error?.message.contains(field) == true, "\(error?.message ?? "")")
    }

    static let decrypted = """
        {"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"291231","currencyCode":"840",
         "transactionAmount":990,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure",
         "paymentData":{"onlinePaymentCryptogram":"AgAAAAAABk4DWZ4C28yUQAAAAAA=","eciIndicator":"7"}
        """

    @Test func aMerchantTokensIdentifierIsRead() throws {
        let merchantToken = try #require(
            ApplePay.DecryptedPayment(json: Data((Self.decrypted + #","merchantTokenIdentifier":"DNITHE000000000000000001"}"#).utf8)))
        #expect(merchantToken.merchantTokenIdentifier == "DNITHE000000000000000001")
        let deviceToken = try #require(ApplePay.DecryptedPayment(json: Data((Self.decrypted + "}").utf8)))
        #expect(deviceToken.merchantTokenIdentifier == nil)
        // Kept through Codable too (Apple's field name).
        let coded = try JSONDecoder().decode(ApplePay.DecryptedPayment.self, from: JSONEncoder().encode(merchantToken))
        #expect(coded == merchantToken)
        #expect(String(decoding: try JSONEncoder().encode(merchantToken), as: UTF8.self).contains("merchantTokenIdentifier"))
    }
}

import ApplePay
import Cashier
import CashierClient
import Foundation
import Testing

import typealias CashierClient.PaymentMethod

/// What the app reads without a wallet SDK's help: Alipay's `safepay` and WeChat's `pay` return
/// URLs, and the server's Apple Pay request typed for the PassKit mapping.
@Suite struct WalletCallbackTests {
    /// A `safepay` URL as the Alipay app opens the merchant's app with it.
    static func safepay(_ memo: [String: String]) throws -> URL {
        let json = String(
            decoding: try JSONSerialization.data(withJSONObject: ["memo": memo, "requestType": "safepay"], options: [.sortedKeys]),
            as: UTF8.self)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: ":,+=/")  // as the real ones: '+' of base64 left as it is
        return try #require(URL(string: "myapp://safepay/?" + (json.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")))
    }

    @Test func alipaySafepayURLsGiveTheWalletResult() throws {
        // Copied from an app's logs (a payer who cancelled), as published in many integrations.
        let cancelled = try #require(
            URL(
                string:
                    "SuixingSteward://safepay/?%7B%22memo%22:%7B%22ResultStatus%22:%226001%22,%22memo%22:%22%E7%94%A8%E6%88%B7%E4%B8%AD%E9%80%94%E5%8F%96%E6%B6%88%22,%22result%22:%22%22%7D,%22requestType%22:%22safepay%22%7D"
            ))
        let outcome = try #require(WalletOutcome(alipayCallbackURL: cancelled))
        #expect(outcome == .alipay(resultStatus: "6001", memo: "用户中途取消", result: ""))
        #expect(outcome.interpretation == .cancelled)

        let result = #"{"alipay_trade_app_pay_response":{"code":"10000","total_amount":"8.80"},"sign":"ab+c/d==","sign_type":"RSA2"}"#
        let paid = try #require(WalletOutcome(alipayCallbackURL: try Self.safepay(["ResultStatus": "9000", "memo": "", "result": result])))
        #expect(paid == .alipay(resultStatus: "9000", memo: "", result: result))  // the '+' survives
        #expect(paid.interpretation == .reportedSuccess)  // and is still confirmed with the server
        let processing = try #require(WalletOutcome(alipayCallbackURL: try Self.safepay(["ResultStatus": "8000"])))
        #expect(processing.interpretation == .unknown)

        #expect(WalletOutcome(alipayCallbackURL: URL(string: "myapp://platformapi/?x=1")!) == nil)
        #expect(WalletOutcome(alipayCallbackURL: URL(string: "myapp://safepay/?not-json")!) == nil)
        #expect(WalletOutcome(alipayCallbackURL: try Self.safepay(["memo": "no status"])) == nil)
    }

    @Test func wechatPayURLsGiveTheErrCode() throws {
        let cancelled = try #require(WalletOutcome(wechatCallbackURL: URL(string: "wxb815a53dcb2faf06://pay/?returnKey=(null)&ret=-2")!))
        #expect(cancelled == .wechat(errCode: -2) && cancelled.interpretation == .cancelled)
        #expect(
            WalletOutcome(wechatCallbackURL: URL(string: "wxb815a53dcb2faf06://pay/?returnKey=&ret=0")!)?.interpretation == .reportedSuccess
        )
        #expect(WalletOutcome(wechatCallbackURL: URL(string: "wxb815a53dcb2faf06://oauth?code=1")!) == nil)
        #expect(WalletOutcome(wechatCallbackURL: URL(string: "myapp://pay/?ret=0")!) == nil)
        #expect(WalletOutcome(wechatCallbackURL: URL(string: "wxb815a53dcb2faf06://pay/?ret=zero")!) == nil)
    }

    @Test func theServersApplePayRequestIsTypedExactly() throws {
        let shipping = [
            try Cashier.ShippingMethod(
                identifier: "std", label: "Standard", detail: "3–5 days", amount: try Money(decimal: "0.00", currency: .cny)),
            try Cashier.ShippingMethod(
                identifier: "exp", label: "Express", detail: "tomorrow", amount: try Money(decimal: "12.10", currency: .cny)),
        ]
        let built = try ApplePay.PaymentRequest(
            merchantIdentifier: "merchant.com.example", countryCode: try CountryCode(alpha2: "CN"),
            items: [try LineItem(label: "Latte", unitAmount: try Money(decimal: "28.00", currency: .cny), quantity: 2)],
            totalLabel: "Example Coffee", supportedNetworks: [.chinaUnionPay, .visa], merchantCapabilities: [.supports3DS, .supportsEMV],
            shippingMethods: shipping, requiredShippingContactFields: [.postalAddress, .phone], applicationData: Array("ord_1".utf8))
        let request = try ApplePayPaymentRequest(json: try built.jsonData())
        #expect(request.merchantIdentifier == "merchant.com.example" && request.countryCode == "CN" && request.currencyCode == "CNY")
        #expect(request.supportedNetworks == ["chinaUnionPay", "visa"] && request.merchantCapabilities == ["supports3DS", "supportsEMV"])
        #expect(request.total.label == "Example Coffee" && request.total.amount == "56.00" && !request.total.isPending)
        #expect(request.summaryItems.last == request.total && request.summaryItems.count == request.lineItems.count + 1)
        #expect(request.shippingMethods.map { $0.identifier } == ["std", "exp"] && request.shippingMethods[1].amount == "12.10")
        #expect(request.requiredShippingContactFields == ["postalAddress", "phone"])
        #expect(request.applicationData == Data("ord_1".utf8))
        // Exact decimals: what NSDecimalNumber(string:) will read on the device.
        #expect(Decimal(string: request.total.amount) == Decimal(5600) / 100)

        func refused(_ change: (inout [String: Any]) -> Void) throws -> Bool {
            var object = try #require(try JSONSerialization.jsonObject(with: try built.jsonData()) as? [String: Any])
            change(&object)
            return (try? ApplePayPaymentRequest(json: try JSONSerialization.data(withJSONObject: object))) == nil
        }
        #expect(try refused { $0["total"] = nil })
        #expect(try refused { $0["total"] = ["label": "X", "amount": "12.7x"] })
        #expect(try refused { $0["merchantCapabilities"] = ["supportsCredit"] })
        #expect(try refused { $0["supportedNetworks"] = [String]() })
        #expect(try refused { $0["applicationData"] = "%%%" })
        #expect(try refused { $0["lineItems"] = [["label": "Latte", "amount": "1e3"]] })
        #expect(try refused { $0["shippingMethods"] = [["identifier": "x", "label": "X", "amount": "1,000.00"]] })
        #expect(try !refused { _ in })
    }
}

/// The methods an app does not start (WeChat's browser and mini programs pay through their own
/// JavaScript; the counter methods are the merchant's till) are refused before the server is asked.
@Suite struct ClientMethodTests {
    @Test(arguments: PaymentMethod.allCases.filter { !PaymentMethod.startedFromApps.contains($0) })
    func aMethodNoAppStartsIsRefusedHere(method: PaymentMethod) async {
        #expect(PaymentMethod.allCases.count == 14 && PaymentMethod.startedFromApps.count == 10)
        // Nothing listens on port 9: an attempt to reach the server would fail otherwise.
        let client = CashierClient(baseURL: URL(string: "http://127.0.0.1:9")!, publishableKey: "pk_test")
        let error = await #expect(throws: CashierClientError.self) {
            try await client.startPayment(orderID: "ord_1", clientSecret: "s", method: method)
        }
        #expect(error?.code == "invalid_request" && error?.message.contains(method.rawValue) == true, "\(String(describing: error))")
    }
}

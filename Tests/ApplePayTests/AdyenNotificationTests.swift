import ApplePay
import Cashier
import Foundation
import TestSupport
import Testing

/// Adyen's standard webhooks: every item's HMAC signature checked before anything is read.
@Suite struct AdyenNotificationTests {
    /// Adyen's own known answer (adyen-php-api-library, tests/Adyen/Util/HmacSignatureTest.php;
    /// the Python library's `generate_notification_sig` gives the same).
    static let key = "DFB1EB5485895CFA84146406857104ABB4CBCABDC8AAF103A624C8F6A3EAAB00"
    static let published = ApplePay.AdyenNotification(
        eventCode: "AUTHORISATION", success: true, pspReference: "7914073381342284", merchantAccountCode: "TestMerchant",
        merchantReference: "TestPayment-1407325143704", value: 1130, currency: "EUR")

    static func body(_ items: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["live": "false", "notificationItems": items])
    }

    @Test func theSignatureIsAdyensKnownAnswer() throws {
        #expect(Self.published.signedText == "7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true")
        #expect(try Self.published.signature(hmacKey: Self.key) == "Ny9gS2veKo5E4w8/OL6xz1/wvT/hYkAXy1xNc/QvO4I=")
        // As Adyen posts it: the signature in additionalData, success as text, amount as an object.
        let body = Data(
            #"""
            {"live":"false","notificationItems":[{"NotificationRequestItem":{"additionalData":{"hmacSignature":"Ny9gS2veKo5E4w8/OL6xz1/wvT/hYkAXy1xNc/QvO4I="},
            "amount":{"currency":"EUR","value":1130},"eventCode":"AUTHORISATION","eventDate":"2014-08-06T13:45:48+02:00",
            "merchantAccountCode":"TestMerchant","merchantReference":"TestPayment-1407325143704","paymentMethod":"visa",
            "pspReference":"7914073381342284","reason":"","success":"true"}}]}
            """#.utf8)
        let items = try ApplePay.AdyenNotification.items(in: body, hmacKey: Self.key)
        #expect(items.count == 1)
        #expect(items.first?.value == 1130 && items.first?.success == true && items.first?.eventCode == "AUTHORISATION")
    }

    /// A dispute's `additionalData.defensePeriodEndsAt` is read as a date (Adyen's ISO 8601 with an
    /// offset), and is absent when it is not one; it lies outside what the signature covers.
    @Test func aDisputesDefencePeriodIsRead() throws {
        var item = Self.published
        item.eventCode = "NOTIFICATION_OF_CHARGEBACK"
        var object = try #require(item.jsonObject(hmacKey: Self.key)["NotificationRequestItem"] as? [String: Any])
        var additional = try #require(object["additionalData"] as? [String: Any])
        for (given, expected) in [("2026-12-24T21:47:55+02:00", 1_798_141_675.0), ("next Tuesday", nil), ("", nil)] {
            additional["defensePeriodEndsAt"] = given
            object["additionalData"] = additional
            let read = try ApplePay.AdyenNotification.items(in: try Self.body([["NotificationRequestItem": object]]), hmacKey: Self.key)
            #expect(read.first?.defensePeriodEndsAt?.timeIntervalSince1970 == expected, "\(given)")
        }
        // Written as it is read (the sandbox's items).
        item.defensePeriodEndsAt = Date(timeIntervalSince1970: 1_798_141_675)
        let written = try Self.body([item.jsonObject(hmacKey: Self.key)])
        #expect(try ApplePay.AdyenNotification.items(in: written, hmacKey: Self.key).first?.defensePeriodEndsAt == item.defensePeriodEndsAt)
    }

    @Test func aTamperedItemAWrongKeyOrNoSignatureIsRefusedWhole() throws {
        let refund = ApplePay.AdyenNotification(
            eventCode: "REFUND", success: true, pspReference: "MOD123", originalReference: "PSP456", merchantAccountCode: "Shop",
            merchantReference: "cashier_R1_refund", value: 500, currency: "CNY")
        let good = try refund.jsonObject(hmacKey: Self.key)
        #expect(try ApplePay.AdyenNotification.items(in: Self.body([good]), hmacKey: Self.key) == [refund])

        func refused(_ items: [[String: Any]], key: String = Self.key) -> PaymentError.Code? {
            do {
                _ = try ApplePay.AdyenNotification.items(in: Self.body(items), hmacKey: key)
                return nil
            } catch {
                return (error as? PaymentError)?.code
            }
        }
        func changed(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
            var item = good["NotificationRequestItem"] as! [String: Any]
            change(&item)
            return ["NotificationRequestItem": item]
        }
        #expect(refused([changed { $0["amount"] = ["value": 50_000, "currency": "CNY"] }]) == .signatureMismatch)
        #expect(refused([changed { $0["success"] = "false" }]) == .signatureMismatch)
        #expect(refused([changed { $0["originalReference"] = "PSP999" }]) == .signatureMismatch)
        #expect(refused([changed { $0["additionalData"] = [:] }]) == .signatureMismatch)
        #expect(refused([good], key: "00" + Self.key.dropFirst(2)) == .signatureMismatch)
        #expect(refused([good], key: "not hex") == .invalidConfiguration)
        // One bad item refuses the whole webhook: Adyen sends it again, nothing half-read.
        #expect(refused([good, changed { $0["pspReference"] = "MOD124" }]) == .signatureMismatch)
        #expect(refused([changed { $0["success"] = "maybe" }]) == .malformedMessage)
        #expect(throws: PaymentError.self) { try ApplePay.AdyenNotification.items(in: Data("[]".utf8), hmacKey: Self.key) }
    }

    /// Adyen's Python library (16.x, in .venv) checks what Cashier signs, and Cashier checks what it signs.
    @Test(.timeLimit(.minutes(2))) func adyensPythonLibraryAgrees() async throws {
        let environment = try await runSubprocess(packageRoot.appendingPathComponent("scripts/python-env").path, [])
        try #require(environment.status == 0, "scripts/python-env failed: \(environment.stderr)")
        let python = environment.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let ours = try ApplePay.AdyenNotification(
            eventCode: "REFUND", success: false, pspReference: "MOD9", originalReference: "PSP9", merchantAccountCode: "Shop",
            merchantReference: "cashier_R9_refund", value: 1275, currency: "CNY", reason: "Insufficient balance on payment"
        ).jsonObject(hmacKey: Self.key)
        let script = """
            import json, sys
            from Adyen.util import is_valid_hmac_notification, generate_notification_sig
            given = json.load(sys.stdin)
            theirs = {"pspReference": "MOD7", "originalReference": "PSP7", "merchantAccountCode": "Shop",
                      "merchantReference": "cashier_R7_refund", "amount": {"value": 990, "currency": "CNY"},
                      "eventCode": "REFUND", "success": "true"}
            theirs["additionalData"] = {"hmacSignature": generate_notification_sig(theirs, given["key"]).decode()}
            print(json.dumps({"ours_valid": is_valid_hmac_notification(given["item"]["NotificationRequestItem"], given["key"]),
                              "theirs": {"NotificationRequestItem": theirs}}))
            """
        let input = try JSONSerialization.data(withJSONObject: ["key": Self.key, "item": ours])
        let result = try await runSubprocess(python, ["-c", script], stdin: input)
        try #require(result.status == 0, "\(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(answer["ours_valid"] as? Bool == true)
        let theirs = try #require(answer["theirs"] as? [String: Any])
        let read = try ApplePay.AdyenNotification.items(in: Self.body([theirs]), hmacKey: Self.key)
        #expect(read.first?.merchantReference == "cashier_R7_refund" && read.first?.value == 990 && read.first?.originalReference == "PSP7")
    }
}

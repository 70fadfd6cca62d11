import Cashier
import Foundation
import Testing
import UnionPay

/// Back notifications: verified before anything is read, checked against the merchant and the
/// stored order; a duplicate is the same transaction (its `queryId`), a replay onto another
/// order or amount fails the signature.
@Suite struct NotificationTests {
    let pki = try! TestPKI()

    func notification(_ changes: [String: String] = [:]) throws -> [String: String] {
        try pki.signedByUnionPay(
            [
                "accessType": "0", "bizType": "000201", "currencyCode": "156", "encoding": "UTF-8", "merId": TestPKI.merchantID,
                "orderId": "C20261206143000A1", "queryId": "201512061430001234567", "respCode": "00", "respMsg": "成功[0000000]",
                "settleAmt": "1200", "settleCurrencyCode": "156", "settleDate": "1206", "traceNo": "123456", "traceTime": "1206143010",
                "txnAmt": "1200", "txnSubType": "01", "txnTime": "20261206143000", "txnType": "01", "reqReserved": "order=7",
            ].merging(changes) { $1 })
    }

    func body(_ fields: [String: String]) -> [UInt8] { Array(UnionPay.FormBody.encode(fields).utf8) }

    func verify(_ fields: [String: String], merchantID: String = TestPKI.merchantID) throws -> UnionPay.Notification {
        try UnionPay.Notification.verify(body(fields), verifier: try pki.verifier(), merchantID: merchantID)
    }

    func code(_ body: () throws -> Void) -> PaymentError.Code? {
        do {
            try body()
            return nil
        } catch let error as PaymentError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func aPaymentNotificationIsVerifiedAndRead() throws {
        let paid = try verify(try notification())
        #expect(paid.kind == .consume && paid.isSuccess && paid.orderID == "C20261206143000A1" && paid.queryID == "201512061430001234567")
        #expect(paid.amount == Money(minorUnits: 1200, currency: .cny) && paid.settleDate == "1206" && paid.reserved == "order=7")
        try paid.check(orderID: "C20261206143000A1", amount: Money(minorUnits: 1200, currency: .cny))
        #expect(code { try paid.check(orderID: "C20261206143000A1", amount: Money(minorUnits: 1201, currency: .cny)) } == .amountMismatch)
        #expect(code { try paid.check(orderID: "C20261206143000A2", amount: Money(minorUnits: 1200, currency: .cny)) } == .malformedMessage)
        #expect(try verify(try notification(["respCode": "A6"])).isSuccess)
        #expect(try !verify(try notification(["respCode": "01"])).isSuccess)
        // A duplicate (UnionPay's retry) is the same transaction: the same queryId to record once.
        #expect(try verify(try notification()) == paid)
        // Blank fields the sender added are not part of what UnionPay signed.
        var withBlank = try notification()
        withBlank["payCardType"] = ""
        #expect(try verify(withBlank) == paid)
    }

    @Test func aRefundNotificationNamesTheConsume() throws {
        let refund = try verify(
            try notification([
                "txnType": "04", "txnSubType": "00", "orderId": "R20261206150000B2", "origQryId": "201512061430001234567",
                "queryId": "201512061500002222222", "txnAmt": "600",
            ]))
        #expect(refund.kind == .refund && refund.originalQueryID == "201512061430001234567" && refund.amount.minorUnits == 600)
        #expect(code { _ = try verify(try notification(["txnType": "04"])) } == .malformedMessage)  // no origQryId
        #expect(code { _ = try verify(try notification(["txnType": "76"])) } == .malformedMessage)
    }

    @Test func tamperedReplayedAndForeignNotificationsChangeNothing() throws {
        let genuine = try notification()
        // Another amount or another order under the same signature.
        for (field, value) in [("txnAmt", "1"), ("orderId", "C20261206143000A9"), ("respCode", "00 "), ("merId", "777290058110099")] {
            var tampered = genuine
            tampered[field] = value
            #expect(code { _ = try verify(tampered) } == .signatureMismatch, "\(field)")
        }
        // Genuine, but for another merchant, or another currency.
        #expect(code { _ = try verify(genuine, merchantID: "777290058110099") } == .merchantMismatch)
        #expect(code { _ = try verify(try notification(["currencyCode": "840"])) } == .currencyMismatch)
        // Signed by a certificate that is not UnionPay's (the merchant's own, which chains).
        #expect(
            code { _ = try verify(try pki.signedByUnionPay(genuine, certificate: pki.merchant, key: pki.merchantKey)) }
                == .signatureMismatch)
        // A backUrl query string mixed into the fields: the signature no longer covers them.
        var mixed = genuine
        mixed["shop"] = "1"
        #expect(code { _ = try verify(mixed) } == .signatureMismatch)
        #expect(
            code { _ = try UnionPay.Notification.verify(Array("txnAmt=%ZZ".utf8), verifier: try pki.verifier(), merchantID: "x") }
                == .malformedMessage)
    }
}

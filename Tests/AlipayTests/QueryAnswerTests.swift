import Alipay
import Cashier
import CashierCrypto
import Foundation
import TestSupport
import Testing

/// Issue 58, item 10 (the library): `alipay.trade.query`'s answer, genuinely signed by Alipay, is
/// used only when it is about the trade asked about; an answer about another trade — paid or not —
/// is refused (`malformedMessage`), so a mixed-up answer never marks a payment paid.
@Suite struct QueryAnswerTests {
    struct Gateway: HTTPTransport {
        let node: String
        let alipayKey: RSAPrivateKey

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let signature = try alipayKey.signature(for: node, scheme: Alipay.SignType.rsa2.scheme)
            let body = #"{"alipay_trade_query_response":\#(node),"sign":"\#(Base64.encode(signature))"}"#
            return HTTPResponse(status: 200, body: Data(body.utf8))
        }
    }

    static let asked = "20261207120000000001"
    static let other = "20261207120000000002"

    static func node(_ number: String, status: String) -> String {
        #"{"code":"10000","msg":"Success","out_trade_no":"\#(number)","trade_no":"2026120722001400000000000001","trade_status":"\#(status)","total_amount":"6.00"}"#
    }

    @Test(arguments: [("TRADE_SUCCESS", false), ("WAIT_BUYER_PAY", false), ("TRADE_CLOSED", false), ("TRADE_SUCCESS", true)])
    func aQueryAnswerIsAboutTheTradeAsked(status: String, aboutThisTrade: Bool) async throws {
        let alipayKey = TestKeys.rsa(1)
        let client = Alipay.Client(
            appID: "2021000000000001", signer: Alipay.Signer(privateKey: TestKeys.rsa(0)), alipayPublicKey: alipayKey.publicKey,
            transport: Gateway(node: Self.node(aboutThisTrade ? Self.asked : Self.other, status: status), alipayKey: alipayKey))
        if aboutThisTrade {
            let trade = try await client.query(outTradeNo: Self.asked)
            #expect(trade.outTradeNo == Self.asked && trade.isPaid && trade.totalAmount.minorUnits == 600)
        } else {
            let refused = await #expect(throws: PaymentError.self) { try await client.query(outTradeNo: Self.asked) }
            #expect(refused?.code == .malformedMessage, "\(String(describing: refused))")
        }
    }

    /// `alipay.trade.pay` (the counter) answers about a trade too: an answer about another one is
    /// not this payment's (issue 58), one about this trade is.
    @Test(arguments: [false, true]) func aCounterAnswerCountsForTheTradeItNames(aboutThisTrade: Bool) async throws {
        let alipayKey = TestKeys.rsa(1)
        let named = aboutThisTrade ? Self.asked : Self.other
        let node =
            #"{"code":"10000","msg":"Success","out_trade_no":"\#(named)","trade_no":"2026120722001400000000000002","total_amount":"6.00"}"#
        let client = Alipay.Client(
            appID: "2021000000000001", signer: Alipay.Signer(privateKey: TestKeys.rsa(0)), alipayPublicKey: alipayKey.publicKey,
            transport: PayGateway(node: node, alipayKey: alipayKey))
        let pay = {
            try await client.pay(
                outTradeNo: Self.asked, total: Money(minorUnits: 600, currency: .cny), subject: "Latte", authCode: "286543210987650000")
        }
        if aboutThisTrade {
            #expect(try await pay() == .paid(amount: Money(minorUnits: 600, currency: .cny), tradeNo: "2026120722001400000000000002"))
        } else {
            let refused = await #expect(throws: PaymentError.self) { try await pay() }
            #expect(refused?.code == .malformedMessage && refused?.message.contains(Self.other) == true)
        }
    }

    struct PayGateway: HTTPTransport {
        let node: String
        let alipayKey: RSAPrivateKey

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let signature = try alipayKey.signature(for: node, scheme: Alipay.SignType.rsa2.scheme)
            let body = #"{"alipay_trade_pay_response":\#(node),"sign":"\#(Base64.encode(signature))"}"#
            return HTTPResponse(status: 200, body: Data(body.utf8))
        }
    }
}

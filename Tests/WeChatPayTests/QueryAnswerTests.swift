import Cashier
import CashierCrypto
import Foundation
import Testing

@testable import WeChatPay

/// A gateway that answers every call with what `answer` makes of it.
struct AnsweringGateway: HTTPTransport {
    let answer: @Sendable (HTTPRequest) throws -> HTTPResponse

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { try answer(request) }
}

/// Issue 58, item 10 (the library): an order query's answer is used only when it is about the
/// trade asked about. A genuine, correctly signed answer about another trade — from a proxy that
/// mixes up answers, or a gateway's mistake — is refused (`malformedMessage`), paid or not; and
/// v2's "paid" must name the trade and carry the amount, so nothing is taken as paid, for any
/// amount, that the answer does not say.
@Suite struct QueryAnswerTests {
    static let asked = "20261207120000000001"
    static let other = "20261207120000000002"

    static let v2Merchant = WeChatPay.V2.Merchant(
        appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")

    /// `pay/orderquery`'s answer with `fields`, signed with the merchant's key as WeChat signs it.
    static func v2Answer(_ fields: [(String, String)]) -> HTTPResponse {
        var all: [(String, String)] =
            [
                ("return_code", "SUCCESS"), ("appid", v2Merchant.appID), ("mch_id", v2Merchant.mchID), ("nonce_str", "n0nce"),
                ("result_code", "SUCCESS"),
            ] + fields
        all.append(("sign", v2Merchant.signer.signature(for: all.map { (key: $0.0, value: $0.1) }, type: .md5)))
        return HTTPResponse(status: 200, body: Data(WeChatPay.V2.XMLDocument(all).xmlString.utf8))
    }

    struct V2Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let fields: [(String, String)]
        let used: Bool
    }

    static let v2Cases: [V2Case] = [
        V2Case(
            testDescription: "another trade, paid", fields: [("trade_state", "SUCCESS"), ("out_trade_no", other), ("total_fee", "600")],
            used: false),
        V2Case(testDescription: "another trade, unpaid", fields: [("trade_state", "NOTPAY"), ("out_trade_no", other)], used: false),
        V2Case(testDescription: "another trade, closed", fields: [("trade_state", "CLOSED"), ("out_trade_no", other)], used: false),
        V2Case(testDescription: "paid, naming no trade", fields: [("trade_state", "SUCCESS"), ("total_fee", "600")], used: false),
        V2Case(testDescription: "paid, without its amount", fields: [("trade_state", "SUCCESS"), ("out_trade_no", asked)], used: false),
        V2Case(testDescription: "refunded, without its amount", fields: [("trade_state", "REFUND"), ("out_trade_no", asked)], used: false),
        V2Case(
            testDescription: "this trade, paid",
            fields: [("trade_state", "SUCCESS"), ("out_trade_no", asked), ("total_fee", "600"), ("transaction_id", "4200000001")],
            used: true),
        V2Case(testDescription: "this trade, unpaid", fields: [("trade_state", "NOTPAY"), ("out_trade_no", asked)], used: true),
    ]

    @Test(arguments: v2Cases)
    func v2OrderQuery(_ answer: V2Case) async throws {
        let client = WeChatPay.V2.Client(merchant: Self.v2Merchant, transport: AnsweringGateway { _ in Self.v2Answer(answer.fields) })
        if answer.used {
            let status = try await client.orderQuery(outTradeNo: Self.asked)
            #expect(status.outTradeNo == Self.asked)
            #expect(!status.isPaid || status.amount?.minorUnits == 600)
        } else {
            let refused = await #expect(throws: PaymentError.self) { try await client.orderQuery(outTradeNo: Self.asked) }
            #expect(refused?.code == .malformedMessage, "\(String(describing: refused))")
        }
    }

    /// A v3 client whose gateway answers `transaction` (JSON) signed with a platform key it knows.
    static func v3Client(answering transaction: String) throws -> WeChatPay.V3.Client {
        let merchant = try V3SigningTests.merchant()
        let platformKey = merchant.privateKey  // any RSA key will do as the platform's, once registered
        let keys = WeChatPay.V3.PlatformKeys()
        keys.add(publicKey: platformKey.publicKey, id: "PUB_KEY_ID_0100000000000000000000000000")
        let gateway = AnsweringGateway { _ in
            let timestamp = String(Int(Date().timeIntervalSince1970))
            let body = Array(transaction.utf8)
            let signature = try platformKey.signature(
                for: Array("\(timestamp)\nn0nce\n".utf8) + body + [0x0A], scheme: .insecurePKCS1v1_5SHA256)
            return HTTPResponse(
                status: 200,
                headers: [
                    "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": "n0nce", "Wechatpay-Signature": Base64.encode(signature),
                    "Wechatpay-Serial": "PUB_KEY_ID_0100000000000000000000000000",
                ], body: Data(body))
        }
        return WeChatPay.V3.Client(merchant: merchant, keys: keys, transport: gateway)
    }

    static func v3Transaction(_ number: String, state: String) -> String {
        #"{"appid":"wxd678efh567hg6787","mchid":"1230000109","out_trade_no":"\#(number)","transaction_id":"4200000002","trade_state":"\#(state)","amount":{"total":600,"currency":"CNY"}}"#
    }

    @Test(arguments: [("SUCCESS", false), ("NOTPAY", false), ("SUCCESS", true), ("NOTPAY", true)])
    func v3TransactionByTradeNumber(state: String, aboutThisTrade: Bool) async throws {
        let client = try Self.v3Client(answering: Self.v3Transaction(aboutThisTrade ? Self.asked : Self.other, state: state))
        if aboutThisTrade {
            #expect(try await client.transaction(outTradeNo: Self.asked).outTradeNo == Self.asked)
        } else {
            let refused = await #expect(throws: PaymentError.self) { try await client.transaction(outTradeNo: Self.asked) }
            #expect(refused?.code == .malformedMessage)
        }
    }

    /// The counter's answer is of the same kind: `pay/micropay` says "paid" about a trade, and only
    /// an answer about this one counts (issue 58); one about this trade is a payment.
    @Test(arguments: [false, true]) func aMicropayAnswerCountsForTheTradeItNames(aboutThisTrade: Bool) async throws {
        let answer = Self.v2Answer([
            ("out_trade_no", aboutThisTrade ? Self.asked : Self.other), ("total_fee", "600"), ("transaction_id", "4200000003"),
        ])
        let client = WeChatPay.V2.Client(merchant: Self.v2Merchant, transport: AnsweringGateway { _ in answer })
        let request = WeChatPay.V2.Micropay(
            body: "Latte", outTradeNo: Self.asked, total: Money(minorUnits: 600, currency: .cny), clientIP: "127.0.0.1",
            authCode: "134567890123450000")
        if aboutThisTrade {
            #expect(
                try await client.micropay(request) == .paid(amount: Money(minorUnits: 600, currency: .cny), transactionID: "4200000003"))
        } else {
            let refused = await #expect(throws: PaymentError.self) { try await client.micropay(request) }
            #expect(refused?.code == .malformedMessage && refused?.message.contains(Self.other) == true)
        }
    }
}

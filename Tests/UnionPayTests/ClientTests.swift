import Cashier
import CashierCrypto
import Foundation
import Synchronization
import TestSupport
import Testing
import UnionPay

/// The gateway client against a scripted gateway (an injected transport): what it sends, and
/// which answers it believes.
@Suite struct ClientTests {
    /// Plays UnionPay: checks the merchant's signature, records the request, answers with
    /// `answer(request)` signed by `sign`.
    final class ScriptedGateway: HTTPTransport, Sendable {
        let pki: TestPKI
        let answer: @Sendable ([String: String]) -> [String: String]
        let sign: @Sendable (TestPKI, [String: String]) throws -> [String: String]
        let status: Int
        let requests = Mutex<[(URL, [String: String])]>([])

        init(
            pki: TestPKI, status: Int = 200,
            sign: @escaping @Sendable (TestPKI, [String: String]) throws -> [String: String] = { try $0.signedByUnionPay($1) },
            answer: @escaping @Sendable ([String: String]) -> [String: String]
        ) {
            self.pki = pki
            self.status = status
            self.sign = sign
            self.answer = answer
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let fields = try UnionPay.FormBody.parse(request.body)
            requests.withLock { $0.append((request.url, fields)) }
            let signedByMerchant = UnionPay.Signer.isValidSignature(
                fields["signature"] ?? "", for: fields, publicKey: pki.merchantKey.publicKey, version: .v5_1_0)
            var echo = fields.filter { ["merId", "orderId", "txnTime", "txnType", "txnSubType", "bizType", "accessType"].contains($0.key) }
            if !signedByMerchant { echo["respCode"] = "11" }
            let answer = try sign(pki, echo.merging(signedByMerchant ? self.answer(fields) : ["respMsg": "验证签名失败[9100004]"]) { $1 })
            return HTTPResponse(status: status, body: Data(UnionPay.ResponseBody.encode(answer).utf8))
        }

        var last: [String: String] { requests.withLock { $0.last?.1 ?? [:] } }
        var lastURL: URL? { requests.withLock { $0.last?.0 } }
    }

    let pki = try! TestPKI()
    let endpoints = UnionPay.Endpoints(
        gateway: URL(string: "http://127.0.0.1:9/unionpay/")!, fileDownload: URL(string: "http://127.0.0.1:9/files/")!)

    func client(_ gateway: ScriptedGateway) throws -> UnionPay.Client {
        UnionPay.Client(
            merchantID: TestPKI.merchantID, signingKey: pki.merchantSigningKey, verifier: try pki.verifier(), endpoints: endpoints,
            transport: gateway)
    }

    func consume(_ amount: Int64 = 1200, time: Date = Date(timeIntervalSince1970: 0)) throws -> UnionPay.ConsumeRequest {
        try UnionPay.ConsumeRequest(
            orderID: "C20261206143000A1", amount: Money(minorUnits: amount, currency: .cny),
            backURL: URL(string: "https://pay.example.com/notify/unionpay")!, time: time, reserved: "order=7", orderDescription: "两杯拿铁")
    }

    func code(_ body: () async throws -> Void) async -> PaymentError? {
        do {
            try await body()
            return nil
        } catch let error as PaymentError {
            return error
        } catch {
            return nil
        }
    }

    @Test func consumeSendsTheRulesFieldsAndReturnsTheTrimmedTN() async throws {
        let gateway = ScriptedGateway(pki: pki) { _ in ["respCode": "00", "respMsg": "成功[0000000]", "tn": " 758492451120261206143\r\n"] }
        let answer = try await client(gateway).consume(try consume())
        #expect(answer.tn == "758492451120261206143")
        let sent = gateway.last
        #expect(gateway.lastURL?.absoluteString == "http://127.0.0.1:9/unionpay/gateway/api/appTransReq.do")
        #expect(sent["txnType"] == "01" && sent["txnSubType"] == "01" && sent["bizType"] == "000201" && sent["channelType"] == "08")
        #expect(sent["txnAmt"] == "1200" && sent["currencyCode"] == "156" && sent["accessType"] == "0" && sent["encoding"] == "UTF-8")
        // txnTime is Beijing time: the epoch is 08:00 there.
        #expect(sent["txnTime"] == "19700101080000")
        #expect(sent["version"] == "5.1.0" && sent["signMethod"] == "01" && sent["certId"] == "68759663125")
        #expect(sent["reqReserved"] == "order=7" && sent["orderDesc"] == "两杯拿铁" && sent["frontUrl"] == nil)
    }

    @Test func answersToAnotherCallAreRefused() async throws {
        // A genuine, signed answer for another order, replayed: refused.
        let replayed = ScriptedGateway(pki: pki) { _ in ["respCode": "00", "orderId": "C20261206143000ZZ", "tn": "1"] }
        #expect(await code { _ = try await client(replayed).consume(try consume()) }?.code == .replayed)
        let otherMerchant = ScriptedGateway(pki: pki) { _ in ["respCode": "00", "merId": "777290058110099", "tn": "1"] }
        #expect(await code { _ = try await client(otherMerchant).consume(try consume()) }?.code == .merchantMismatch)
        let otherTime = ScriptedGateway(pki: pki) { _ in ["respCode": "00", "txnTime": "20261206143001", "tn": "1"] }
        #expect(await code { _ = try await client(otherTime).consume(try consume()) }?.code == .replayed)
        // Signed by an impostor's key: refused before anything is read.
        let forged = ScriptedGateway(
            pki: pki, sign: { try $0.signedByUnionPay($1, key: TestKeys.rsa(4)) }, answer: { _ in ["respCode": "00", "tn": "1"] })
        #expect(await code { _ = try await client(forged).consume(try consume()) }?.code == .signatureMismatch)
        let unsigned = ScriptedGateway(pki: pki, sign: { _, fields in fields }, answer: { _ in ["respCode": "00", "tn": "1"] })
        #expect(await code { _ = try await client(unsigned).consume(try consume()) }?.code == .signatureMismatch)
    }

    @Test func refusalsMirrorRespCodeAndRespMsg() async throws {
        let duplicate = ScriptedGateway(pki: pki) { _ in ["respCode": "12", "respMsg": "重复交易[2000012]"] }
        let error = await code { _ = try await client(duplicate).consume(try consume()) }
        #expect(error?.code == .providerRejected && error?.providerCode == "12" && error?.providerMessage == "重复交易[2000012]")
        let down = ScriptedGateway(pki: pki, status: 502) { _ in [:] }
        #expect(await code { _ = try await client(down).consume(try consume()) }?.code == .transport)
        // A merchant key UnionPay does not know: UnionPay's 11 comes back as a refusal.
        let strange = UnionPay.Client(
            merchantID: TestPKI.merchantID,
            signingKey: try UnionPay.SigningKey(
                privateKey: TestKeys.rsa(5),
                certificate: try TestPKI.issue(
                    "041@x@\(TestPKI.merchantID):SIGN@1", key: TestKeys.rsa(5), serial: 5, by: (pki.middle, pki.middleKey))),
            verifier: try pki.verifier(), endpoints: endpoints, transport: ScriptedGateway(pki: pki) { _ in ["respCode": "00"] })
        #expect(await code { _ = try await strange.consume(try consume()) }?.providerCode == "11")
    }

    @Test(arguments: [
        (["respCode": "00", "origRespCode": "00", "queryId": "201512061430001234567", "txnAmt": "1200"], "succeeded"),
        (["respCode": "00", "origRespCode": "A6"], "succeeded"),
        (["respCode": "00", "origRespCode": "05"], "inProcess"),
        (["respCode": "03"], "inProcess"),
        (["respCode": "34", "respMsg": "查无此交易[2600000]"], "notFound"),
        (["respCode": "00", "origRespCode": "61", "origRespMsg": "超出金额限制"], "failed"),
        (["respCode": "37", "respMsg": "查询过频"], "throws"),
        (["respCode": "00"], "throws"),
    ])
    func queryReadsOrigRespCode(answer: [String: String], expected: String) async throws {
        let gateway = ScriptedGateway(pki: pki) { _ in answer }
        do {
            let result = try await client(gateway).query(orderID: "C20261206143000A1", transactionTime: "20261206143000")
            let state =
                switch result.state {
                case .succeeded: "succeeded"
                case .inProcess: "inProcess"
                case .notFound: "notFound"
                case .failed: "failed"
                }
            #expect(state == expected)
            if expected == "succeeded", answer["txnAmt"] != nil {
                #expect(result.amount == Money(minorUnits: 1200, currency: .cny) && result.queryID == "201512061430001234567")
            }
        } catch let error as PaymentError {
            #expect(expected == "throws", "\(error)")
        }
        #expect(gateway.last["txnType"] == "00" && gateway.last["bizType"] == "000000" && gateway.last["orderId"] == "C20261206143000A1")
        #expect(gateway.lastURL?.path == "/unionpay/gateway/api/queryTrans.do")
    }

    @Test func undoAndRefundNameTheConsumesQueryID() async throws {
        let gateway = ScriptedGateway(pki: pki) { request in
            switch request["txnAmt"] {
            case "1200": ["respCode": "00", "queryId": "201512061430009999999"]
            case "600": ["respCode": "04", "respMsg": "交易处理中"]
            default: ["respCode": "36", "respMsg": "与原交易信息不符"]
            }
        }
        func reversal(_ kind: UnionPay.ReversalRequest.Kind, _ amount: Int64) throws -> UnionPay.ReversalRequest {
            try UnionPay.ReversalRequest(
                kind: kind, orderID: "R20261206150000B2", originalQueryID: "201512061430001234567",
                amount: Money(minorUnits: amount, currency: .cny), backURL: URL(string: "https://pay.example.com/n")!, time: Date())
        }
        let undo = try await client(gateway).reverse(try reversal(.undo, 1200))
        #expect(undo.state == .accepted && undo.queryID == "201512061430009999999")
        #expect(
            gateway.last["txnType"] == "31" && gateway.last["origQryId"] == "201512061430001234567" && gateway.last["txnSubType"] == "00")
        #expect(gateway.lastURL?.path == "/unionpay/gateway/api/backTransReq.do")
        #expect(try await client(gateway).reverse(try reversal(.refund, 600)).state == .inProcess)
        #expect(gateway.last["txnType"] == "04")
        #expect(await code { _ = try await client(gateway).reverse(try reversal(.refund, 5000)) }?.providerCode == "36")
    }

    @Test func requestsThatBreakTheRulesAreNotSent() {
        let url = URL(string: "https://pay.example.com/n")!
        func refused(_ body: () throws -> Void) -> Bool {
            (try? body()) == nil
        }
        let cny = { (fen: Int64) in Money(minorUnits: fen, currency: .cny) }
        #expect(refused { _ = try UnionPay.ConsumeRequest(orderID: "C1234", amount: cny(1), backURL: url, time: Date()) })
        #expect(refused { _ = try UnionPay.ConsumeRequest(orderID: "C2026-1206-01", amount: cny(1), backURL: url, time: Date()) })
        #expect(refused { _ = try UnionPay.ConsumeRequest(orderID: "C2026_120601", amount: cny(1), backURL: url, time: Date()) })
        #expect(
            refused {
                _ = try UnionPay.ConsumeRequest(orderID: String(repeating: "A", count: 41), amount: cny(1), backURL: url, time: Date())
            })
        #expect(
            !refused {
                _ = try UnionPay.ConsumeRequest(orderID: String(repeating: "A", count: 40), amount: cny(1), backURL: url, time: Date())
            })
        #expect(refused { _ = try UnionPay.ConsumeRequest(orderID: "C20261206", amount: cny(0), backURL: url, time: Date()) })
        #expect(
            refused { _ = try UnionPay.ConsumeRequest(orderID: "C20261206", amount: cny(1_000_000_000_000), backURL: url, time: Date()) })
        #expect(
            refused {
                _ = try UnionPay.ConsumeRequest(
                    orderID: "C20261206", amount: Money(minorUnits: 100, currency: .usd), backURL: url, time: Date())
            })
        #expect(
            refused {
                _ = try UnionPay.ConsumeRequest(orderID: "C20261206", amount: cny(1), backURL: URL(string: "ftp://x/")!, time: Date())
            })
        #expect(
            refused { _ = try UnionPay.ConsumeRequest(orderID: "C20261206", amount: cny(1), backURL: url, time: Date(), reserved: "a&b") })
        #expect(
            refused { _ = try UnionPay.ConsumeRequest(orderID: "C20261206", amount: cny(1), backURL: url, time: Date(), reserved: "{a}") })
        #expect(
            refused {
                _ = try UnionPay.ReversalRequest(
                    kind: .refund, orderID: "R20261206", originalQueryID: "a&b", amount: cny(1), backURL: url, time: Date())
            })
        #expect(UnionPay.Identifiers.amount("000000001200") == cny(1200) && UnionPay.Identifiers.amount("12.00") == nil)
        #expect(UnionPay.Identifiers.amount("-1") == nil && UnionPay.Identifiers.amount("") == nil)
    }
}

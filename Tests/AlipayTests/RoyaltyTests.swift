import Alipay
import Cashier
import CashierCrypto
import Foundation
import Synchronization
import TestSupport
import Testing

/// The library's profit sharing (分账) calls: the exact `biz_content` each sends, signed with the
/// app's key; amounts in yuan from integer fen; the checks made before sending; and the settle
/// notification's verification.
@Suite struct RoyaltyTests {
    /// Records each request and answers `node` for its method, signed with `alipayKey`.
    final class Recorder: HTTPTransport, Sendable {
        let alipayKey = TestKeys.rsa(1)
        let node: String
        let sent = Mutex<[[String: String]]>([])

        init(node: String = #"{"code":"10000","msg":"Success"}"#) { self.node = node }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let parameters = try Alipay.FormBody.parse(request.body)
            sent.withLock { $0.append(parameters) }
            let name = (parameters["method"] ?? "").replacingOccurrences(of: ".", with: "_") + "_response"
            let signature = try alipayKey.signature(for: node, scheme: Alipay.SignType.rsa2.scheme)
            return HTTPResponse(status: 200, body: Data(#"{"\#(name)":\#(node),"sign":"\#(Base64.encode(signature))"}"#.utf8))
        }

        var last: [String: String] { sent.withLock { $0.last ?? [:] } }
    }

    static let appKey = TestKeys.rsa(0)

    static func client(_ recorder: Recorder) -> Alipay.Client {
        Alipay.Client(
            appID: "2021000000000001", signer: Alipay.Signer(privateKey: appKey), alipayPublicKey: recorder.alipayKey.publicKey,
            transport: recorder)
    }

    static func yuan(_ fen: Int64) -> Money { Money(minorUnits: fen, currency: .cny) }

    /// The last request was `method` with exactly `biz`, signed by the app (keeping sign_type).
    static func expectSent(_ recorder: Recorder, _ method: String, _ biz: String) {
        let parameters = recorder.last
        #expect(parameters["method"] == method)
        #expect(parameters["biz_content"] == biz)
        #expect(parameters["sign_type"] == "RSA2" && parameters["app_id"] == "2021000000000001")
        #expect(
            Alipay.Signer.isValidSignature(
                parameters["sign"] ?? "", content: Alipay.Signer.content(parameters), publicKey: appKey.publicKey, type: .rsa2))
    }

    @Test func relationCallsSendTheReceiverList() async throws {
        let recorder = Recorder(node: #"{"code":"10000","msg":"Success","result_code":"SUCCESS"}"#)
        let client = Self.client(recorder)
        let receivers = [
            Alipay.RoyaltyReceiver(type: "userId", account: "2088000000000101"),
            Alipay.RoyaltyReceiver(type: "loginName", account: "a@example.com", name: "张三", memo: "门店"),
        ]
        #expect(try await client.bindRoyaltyRelation(outRequestNo: "B1", receivers: receivers) == "SUCCESS")
        Self.expectSent(
            recorder, "alipay.trade.royalty.relation.bind",
            #"{"out_request_no":"B1","receiver_list":[{"account":"2088000000000101","type":"userId"},{"account":"a@example.com","memo":"门店","name":"张三","type":"loginName"}]}"#
        )
        try await client.unbindRoyaltyRelation(outRequestNo: "U1", receivers: [receivers[0]])
        Self.expectSent(
            recorder, "alipay.trade.royalty.relation.unbind",
            #"{"out_request_no":"U1","receiver_list":[{"account":"2088000000000101","type":"userId"}]}"#)
        _ = try await client.royaltyRelations(outRequestNo: "Q1", pageNumber: 2, pageSize: 10)
        Self.expectSent(recorder, "alipay.trade.royalty.relation.batchquery", #"{"out_request_no":"Q1","page_num":2,"page_size":10}"#)
    }

    @Test func batchqueryAnswerIsRead() async throws {
        let recorder = Recorder(
            node:
                #"{"code":"10000","msg":"Success","result_code":"SUCCESS","receiver_list":[{"type":"userId","account":"2088000000000101","memo":"m"}],"total_page_num":3,"total_record_num":41,"current_page_num":2,"current_page_size":1}"#
        )
        let page = try await Self.client(recorder).royaltyRelations(outRequestNo: "Q1", pageNumber: 2)
        #expect(
            page
                == .init(
                    receivers: [.init(type: "userId", account: "2088000000000101", memo: "m")], totalPages: 3, totalRecords: 41,
                    pageNumber: 2, pageSize: 1))
    }

    @Test func settleSendsYuanFromFenAndTheMode() async throws {
        let recorder = Recorder(node: #"{"code":"10000","msg":"Success","trade_no":"T1","settle_no":"2026SETTLE1"}"#)
        let client = Self.client(recorder)
        let settle = try await client.settle(
            outRequestNo: "S1", tradeNo: "T1",
            shares: [
                .init(transInType: "userId", transIn: "2088000000000101", amount: Self.yuan(1005), description: "佣金"),
                .init(transInType: "openId", transIn: "074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5", amount: Self.yuan(1)),
            ], finish: true, mode: .async)
        #expect(settle == .init(outRequestNo: "S1", tradeNo: "T1", settleNo: "2026SETTLE1", operationDate: nil, details: []))
        Self.expectSent(
            recorder, "alipay.trade.order.settle",
            #"{"extend_params":{"royalty_finish":"true"},"out_request_no":"S1","royalty_mode":"async","royalty_parameters":[{"amount":"10.05","desc":"佣金","royalty_type":"transfer","trans_in":"2088000000000101","trans_in_type":"userId"},{"amount":"0.01","royalty_type":"transfer","trans_in":"074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5","trans_in_type":"openId"}],"trade_no":"T1"}"#
        )
        _ = try await client.settle(outRequestNo: "S2", tradeNo: "T1", shares: [], finish: true)
        Self.expectSent(
            recorder, "alipay.trade.order.settle",
            #"{"extend_params":{"royalty_finish":"true"},"out_request_no":"S2","royalty_mode":"sync","royalty_parameters":[],"trade_no":"T1"}"#
        )
    }

    @Test func queriesSendTheirNumbersAndReadTheAnswers() async throws {
        let settleNode =
            #"{"code":"10000","msg":"Success","out_request_no":"S1","settle_no":"2026SETTLE1","operation_dt":"2026-12-07 12:00:00","royalty_detail_list":[{"operation_type":"transfer","trans_in":"2088000000000101","trans_in_type":"userId","amount":"10.05","state":"SUCCESS","detail_id":"D1"},{"operation_type":"transfer","trans_in":"2088000000000102","amount":0.3,"state":"FAIL","error_code":"X","error_desc":"bad"}]}"#
        let recorder = Recorder(node: settleNode)
        let client = Self.client(recorder)
        let settle = try await client.settleQuery(outRequestNo: "S1", tradeNo: "T1")
        Self.expectSent(recorder, "alipay.trade.order.settle.query", #"{"out_request_no":"S1","trade_no":"T1"}"#)
        #expect(settle.isFinal && settle.details.map(\.amount) == [Self.yuan(1005), Self.yuan(30)])
        #expect(settle.details.last?.errorCode == "X" && settle.details.first?.detailID == "D1")
        _ = try await client.settleQuery(settleNo: "2026SETTLE1")
        Self.expectSent(recorder, "alipay.trade.order.settle.query", #"{"settle_no":"2026SETTLE1"}"#)
        let wrong = await #expect(throws: PaymentError.self) { try await client.settleQuery(outRequestNo: "S9", tradeNo: "T1") }
        #expect(wrong?.code == .malformedMessage)

        let onsettle = Recorder(node: #"{"code":"10000","msg":"Success","unsettled_amount":"70.00"}"#)
        #expect(try await Self.client(onsettle).unsettledAmount(tradeNo: "T1") == Self.yuan(7000))
        Self.expectSent(onsettle, "alipay.trade.order.onsettle.query", #"{"trade_no":"T1"}"#)

        let account = Recorder(node: #"{"code":"10000","msg":"Success","available_amount":"1234.56","freeze_amount":"0.00"}"#)
        #expect(
            try await Self.client(account).fundAccount(alipayUserID: "2088000000000001")
                == .init(available: Self.yuan(123_456), frozen: Self.yuan(0)))
        Self.expectSent(account, "alipay.fund.account.query", #"{"account_type":"ACCTRANS_ACCOUNT","alipay_user_id":"2088000000000001"}"#)
    }

    @Test func royaltyFreezeIsSentOnlyWhenAsked() throws {
        #expect(Alipay.TradeExtras().biz["extend_params"] == nil)
        let biz = Alipay.TradeExtras(royaltyFreeze: true).biz
        #expect((biz["extend_params"] as? [String: String]) == ["royalty_freeze": "true"])
    }

    @Test func inputIsCheckedBeforeSending() async throws {
        let recorder = Recorder()
        let client = Self.client(recorder)
        let one = Alipay.RoyaltyShare(transInType: "userId", transIn: "2088000000000101", amount: Self.yuan(1))
        let six = Array(repeating: one, count: 6)
        let refusals: [(String, () async throws -> Void)] = [
            ("six receivers, sync", { _ = try await client.settle(outRequestNo: "S", tradeNo: "T", shares: six) }),
            (
                "51 receivers, async",
                {
                    _ = try await client.settle(outRequestNo: "S", tradeNo: "T", shares: Array(repeating: one, count: 51), mode: .async)
                }
            ),
            (
                "zero amount",
                {
                    _ = try await client.settle(
                        outRequestNo: "S", tradeNo: "T",
                        shares: [.init(transInType: "userId", transIn: "2088000000000101", amount: Self.yuan(0))])
                }
            ),
            (
                "negative amount",
                {
                    _ = try await client.settle(
                        outRequestNo: "S", tradeNo: "T",
                        shares: [.init(transInType: "userId", transIn: "2088000000000101", amount: Self.yuan(-5))])
                }
            ),
            (
                "other currency",
                {
                    _ = try await client.settle(
                        outRequestNo: "S", tradeNo: "T",
                        shares: [.init(transInType: "userId", transIn: "2088000000000101", amount: Money(minorUnits: 5, currency: .usd))])
                }
            ),
            ("no shares, no finish", { _ = try await client.settle(outRequestNo: "S", tradeNo: "T", shares: []) }),
            (
                "bad type",
                {
                    _ = try await client.settle(
                        outRequestNo: "S", tradeNo: "T", shares: [.init(transInType: "cardAliasNo", transIn: "x", amount: Self.yuan(1))])
                }
            ),
            ("long number", { _ = try await client.settle(outRequestNo: String(repeating: "9", count: 65), tradeNo: "T", shares: [one]) }),
            ("no receivers", { try await client.bindRoyaltyRelation(outRequestNo: "B", receivers: []) }),
            ("page size", { _ = try await client.royaltyRelations(outRequestNo: "Q", pageSize: 101) }),
        ]
        for (name, call) in refusals {
            let error = await #expect(throws: PaymentError.self, "\(name)") { try await call() }
            #expect(error?.code == .invalidRequest, "\(name)")
        }
        #expect(recorder.sent.withLock { $0.isEmpty })
        // Five in sync and fifty in async are fine.
        #expect(throws: Never.self) {
            try Alipay.Client.settleBiz(outRequestNo: "S", tradeNo: "T", shares: Array(six.prefix(5)), finish: false, mode: .sync)
        }
        #expect(throws: Never.self) {
            try Alipay.Client.settleBiz(
                outRequestNo: "S", tradeNo: "T", shares: Array(repeating: one, count: 50), finish: false, mode: .async)
        }
    }
}

import Cashier
import CashierCrypto
import Foundation
import Synchronization
import Testing

@testable import WeChatPay

/// The profit-sharing bill (分账账单): a bill text read into typed lines with known answers (a
/// share, a return, an unfreeze; yuan to fen; backticks off), its totals line read and optional,
/// a line that does not fit refused, and through the client the listing asked for, the file
/// fetched from the gateway and refused when it does not match the listing's SHA1.
@Suite struct V3ProfitSharingBillTests {
    static let text = """
        分账发起时间,分账发起方,分账方,微信订单号,微信分账/回退单号,商户分账单号,商户回退单号,业务类型,分账接收方类型,分账接收方,分账金额（元）,处理状态,分账描述\r
        `2026-12-07 10:00:01,`1900000109,`1900000109,`4208450740201411110007820472,`30000000000000000000000001,`P20150806125346,`,`分账,`MERCHANT_ID,`1900000110,`12.34,`SUCCESS,`分给商户\r
        `2026-12-07 11:30:00,`1900000109,`1900000109,`4208450740201411110007820472,`30000000000000000000000002,`P20150806125346,`R20190516001,`回退,`MERCHANT_ID,`1900000110,`2.00,`SUCCESS,`用户退款\r
        `2026-12-07 12:00:00,`1900000109,`1900000109,`4208450740201411110007820472,`30000000000000000000000003,`P20150806125347,`,`解冻给分账方,`MERCHANT_ID,`1900000109,`87.66,`SUCCESS,`解冻全部剩余资金\r
        分账总笔数,分账总金额（元）,回退总笔数,回退总金额（元）\r
        `2,`100.00,`1,`2.00\r

        """

    @Test func aBillIsReadIntoTypedLines() throws {
        let bill = try WeChatPay.V3.ProfitSharingBill(parsing: Self.text)
        #expect(bill.lines.count == 3)
        let share = bill.lines[0]
        #expect(share.kind == .share && share.outOrderNo == "P20150806125346" && share.outReturnNo == nil)
        #expect(share.receiverType == "MERCHANT_ID" && share.receiverAccount == "1900000110" && share.amount == 1234)
        #expect(share.state == "SUCCESS" && share.time == "2026-12-07 10:00:01" && share.description == "分给商户")
        #expect(share.transactionID == "4208450740201411110007820472" && share.orderID == "30000000000000000000000001")
        let back = bill.lines[1]
        #expect(back.kind == .return && back.outReturnNo == "R20190516001" && back.amount == 200)
        #expect(bill.lines[2].kind == .unfreeze && bill.lines[2].amount == 8766)
        #expect(bill.sharedTotal == 10_000 && bill.returnedTotal == 200)
    }

    @Test func theTextWrittenReadsBackTheSame() throws {
        let bill = try WeChatPay.V3.ProfitSharingBill(parsing: Self.text)
        let again = try WeChatPay.V3.ProfitSharingBill(parsing: WeChatPay.V3.ProfitSharingBill(lines: bill.lines).text)
        #expect(again.lines == bill.lines && again.sharedTotal == 10_000 && again.returnedTotal == 200)
    }

    @Test func totalsAreOptionalAndMustFitTheirHeader() throws {
        let detail = Self.text.components(separatedBy: "\r\n").prefix(4).joined(separator: "\r\n")
        let bare = try WeChatPay.V3.ProfitSharingBill(parsing: detail)
        #expect(bare.lines.count == 3 && bare.sharedTotal == nil && bare.returnedTotal == nil)
        let headerOnly = try WeChatPay.V3.ProfitSharingBill(
            parsing: Self.text.components(separatedBy: "\r\n").prefix(1).joined() + "\r\n")
        #expect(headerOnly.lines.isEmpty)
        let cut = detail + "\r\n分账总笔数,分账总金额（元）,回退总笔数,回退总金额（元）\r\n`2,`100.00\r\n"
        #expect(throws: PaymentError.self) { try WeChatPay.V3.ProfitSharingBill(parsing: cut) }
        let missing = detail + "\r\n分账总笔数,分账总金额（元）,回退总笔数,回退总金额（元）\r\n"
        #expect(throws: PaymentError.self) { try WeChatPay.V3.ProfitSharingBill(parsing: missing) }
    }

    @Test(arguments: [
        "交易时间,商户号\r\n", "分账发起时间,分账发起方\r\n",
        text.replacingOccurrences(of: "`12.34", with: "`12.3x"), text.replacingOccurrences(of: "`回退", with: "`退款"),
        text.replacingOccurrences(of: "`分给商户", with: "`分给商户,`多一列"),
    ])
    func aBillThatDoesNotFitIsRefused(_ text: String) {
        let refused = #expect(throws: PaymentError.self) { try WeChatPay.V3.ProfitSharingBill(parsing: text) }
        #expect(refused?.code == .malformedMessage)
    }

    /// The addresses a gateway was asked.
    final class Asked: Sendable {
        let urls = Mutex<[String]>([])
    }

    /// A gateway answering the signed listing of `file` (whose SHA1 is `hash`, or the file's) and then the file.
    static func client(serving file: String, hash: String? = nil, asked: Asked = Asked()) throws -> WeChatPay.V3.Client {
        let merchant = try V3SigningTests.merchant()
        let platformKey = merchant.privateKey
        let keys = WeChatPay.V3.PlatformKeys()
        keys.add(publicKey: platformKey.publicKey, id: "PUB_KEY_ID_0100000000000000000000000000")
        let bytes = Array(file.utf8)
        let sha1 = hash ?? Hex.encode(DigestAlgorithm.insecureSHA1.hash(bytes))
        let gateway = AnsweringGateway { request in
            asked.urls.withLock { $0.append(request.url.absoluteString) }
            guard request.url.path == "/v3/profitsharing/bills" else { return HTTPResponse(status: 200, headers: [:], body: Data(bytes)) }
            let listing = Array(
                #"{"hash_type":"SHA1","hash_value":"\#(sha1)","download_url":"https://api.mch.weixin.qq.com/v3/billdownload/file?token=t0ken"}"#
                    .utf8)
            let timestamp = String(Int(Date().timeIntervalSince1970))
            let signature = try platformKey.signature(
                for: Array("\(timestamp)\nn0nce\n".utf8) + listing + [0x0A], scheme: .insecurePKCS1v1_5SHA256)
            return HTTPResponse(
                status: 200,
                headers: [
                    "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": "n0nce", "Wechatpay-Signature": Base64.encode(signature),
                    "Wechatpay-Serial": "PUB_KEY_ID_0100000000000000000000000000",
                ], body: Data(listing))
        }
        return WeChatPay.V3.Client(merchant: merchant, keys: keys, transport: gateway)
    }

    @Test func theClientAsksForTheDaysBillAndChecksItsHash() async throws {
        let asked = Asked()
        let bill = try await Self.client(serving: Self.text, asked: asked).profitSharingBill(date: "2026-12-07")
        #expect(bill.lines.map(\.amount) == [1234, 200, 8766])
        #expect(
            asked.urls.withLock { $0 } == [
                "https://api.mch.weixin.qq.com/v3/profitsharing/bills?bill_date=2026-12-07&tar_type=GZIP",
                "https://api.mch.weixin.qq.com/v3/billdownload/file?token=t0ken",
            ])
    }

    @Test func aFileThatDoesNotMatchItsHashIsRefused() async throws {
        let other = Hex.encode(DigestAlgorithm.insecureSHA1.hash(Array("another bill".utf8)))
        let client = try Self.client(serving: Self.text, hash: other)
        let refused = await #expect(throws: PaymentError.self) { try await client.profitSharingBill(date: "2026-12-07") }
        #expect(refused?.code == .signatureMismatch)
    }
}

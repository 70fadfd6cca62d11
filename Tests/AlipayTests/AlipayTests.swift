import Alipay
import Cashier
import CashierArchive
import CashierCrypto
import Foundation
import TestSupport
import Testing

@Suite struct AlipayTests {
    struct Vectors: Decodable {
        struct Notify: Decodable {
            let alipay_public_key_pem: String
            let params: [String: String]
        }
        struct Sync: Decodable {
            let alipay_public_key_pem: String
            let raw_response: String
            let signed_substring: String
        }
        let notify_trade_status_sync: Notify
        let notify_servicemarket_order: Notify
        let sync_response: Sync
    }

    static func vectors() throws -> Vectors {
        let url = try #require(Bundle.module.url(forResource: "real_signed.json", withExtension: nil, subdirectory: "Vectors"))
        return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }

    static func body(_ fields: [String: String]) -> [UInt8] {
        Array(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
    }

    /// A real trade notification (verifies with sign and sign_type removed) and a real
    /// service-market notification (signed keeping sign_type) both verify; the bare base64 key works.
    @Test func realNotificationsVerify() throws {
        let vectors = try Self.vectors()
        let trade = vectors.notify_trade_status_sync
        let key = try RSAPublicKey(pemRepresentation: trade.alipay_public_key_pem)
        let notification = try Alipay.Notification.verify(
            Self.body(trade.params), publicKey: key, appID: "2019073166072302", sellerID: "2088531891668739")
        #expect(notification.isPaid)
        #expect(notification.totalAmount == Money(minorUnits: 10, currency: .cny))
        try notification.check(outTradeNo: "20190815155618536-564-57", amount: Money(minorUnits: 10, currency: .cny))
        let market = vectors.notify_servicemarket_order
        try Alipay.Notification.verifySignature(
            market.params, publicKey: RSAPublicKey(pemRepresentation: market.alipay_public_key_pem), signType: .rsa2)
    }

    @Test(arguments: ["total_amount", "out_trade_no", "trade_status", "buyer_id", "gmt_payment"])
    func everyTamperedFieldFails(field: String) throws {
        let trade = try Self.vectors().notify_trade_status_sync
        let key = try RSAPublicKey(pemRepresentation: trade.alipay_public_key_pem)
        var fields = trade.params
        fields[field] = (fields[field] ?? "") + "1"
        let error = #expect(throws: PaymentError.self) { try Alipay.Notification.verify(Self.body(fields), publicKey: key) }
        #expect(error?.code == .signatureMismatch)
    }

    @Test func wrongKeyAppSellerAmountAndSignTypeGames() throws {
        let trade = try Self.vectors().notify_trade_status_sync
        let key = try RSAPublicKey(pemRepresentation: trade.alipay_public_key_pem)
        let otherKey = TestKeys.rsa(1).publicKey
        #expect(throws: PaymentError.self) { try Alipay.Notification.verify(Self.body(trade.params), publicKey: otherKey) }
        let app = #expect(throws: PaymentError.self) {
            try Alipay.Notification.verify(Self.body(trade.params), publicKey: key, appID: "2021000000000000")
        }
        #expect(app?.code == .merchantMismatch)
        let seller = #expect(throws: PaymentError.self) {
            try Alipay.Notification.verify(Self.body(trade.params), publicKey: key, sellerID: "2088000000000000")
        }
        #expect(seller?.code == .merchantMismatch)
        let notification = try Alipay.Notification.verify(Self.body(trade.params), publicKey: key)
        let amount = #expect(throws: PaymentError.self) {
            try notification.check(outTradeNo: notification.outTradeNo, amount: Money(minorUnits: 11, currency: .cny))
        }
        #expect(amount?.code == .amountMismatch)
        #expect(throws: PaymentError.self) { try notification.check(outTradeNo: "OTHER", amount: notification.totalAmount) }
        // Declaring legacy RSA to a RSA2 merchant is refused, and a missing sign is refused.
        var downgraded = trade.params
        downgraded["sign_type"] = "RSA"
        #expect(throws: PaymentError.self) { try Alipay.Notification.verify(Self.body(downgraded), publicKey: key) }
        var unsigned = trade.params
        unsigned["sign"] = nil
        #expect(throws: PaymentError.self) { try Alipay.Notification.verify(Self.body(unsigned), publicKey: key) }
    }

    @Test func realSyncResponseVerifiesOverItsRawNode() throws {
        let sync = try Self.vectors().sync_response
        let key = try RSAPublicKey(pemRepresentation: sync.alipay_public_key_pem)
        let node = try Alipay.ResponseNode(text: sync.raw_response, name: "alipay_open_file_upload_response")
        #expect(node.raw == sync.signed_substring)
        try node.verify(publicKey: key)
        // Re-serialising the same JSON (other spacing) would not verify: the raw node matters.
        let spaced = sync.raw_response.replacingOccurrences(of: #""code":"10000""#, with: #""code": "10000""#)
        #expect(throws: PaymentError.self) {
            try Alipay.ResponseNode(text: spaced, name: "alipay_open_file_upload_response").verify(publicKey: key)
        }
        #expect(throws: PaymentError.self) { try Alipay.ResponseNode(text: sync.raw_response, name: "alipay_trade_query_response") }
    }

    @Test func scannerSkipsQuotesAndNesting() throws {
        let text = #"{"a":"x\"}{,","alipay_trade_query_response":{"code":"10000","n":{"k":["}",1]}},"sign":"c2ln\/bmF0dXJl"}"#
        let node = try Alipay.ResponseNode(text: text, name: "alipay_trade_query_response")
        #expect(node.raw == #"{"code":"10000","n":{"k":["}",1]}}"#)
        #expect(node.sign == "c2ln/bmF0dXJl")
        for broken in [#"{"a":"#, #"["a"]"#, #"{"alipay_trade_query_response":{"code":"1"}"#, ""] {
            #expect(throws: PaymentError.self) { try Alipay.ResponseNode(text: broken, name: "alipay_trade_query_response") }
        }
    }

    @Test func ourSignaturesAndOrderStrings() throws {
        let merchantKey = TestKeys.rsa(2)
        let signer = Alipay.Signer(privateKey: merchantKey)
        let biz = #"{"out_trade_no":"C20261129","total_amount":"51.00","subject":"2 杯拿铁 & more"}"#
        let orderString = try Alipay.OrderString.make(
            appID: "2021000000000000", signer: signer, notifyURL: "https://shop.example/notify/alipay", bizContent: biz,
            timestamp: Date(timeIntervalSince1970: 1_795_000_000))
        let fields = try Alipay.FormBody.parse(Array(orderString.utf8))
        #expect(fields["biz_content"] == biz)
        #expect(fields["timestamp"] == "2026-11-18 19:06:40")  // Beijing time
        #expect(fields["method"] == "alipay.trade.app.pay")
        #expect(orderString.hasSuffix("&sign=" + Alipay.FormBody.escape(fields["sign"] ?? "")))
        // Request signatures keep sign_type.
        #expect(
            Alipay.Signer.isValidSignature(
                fields["sign"]!, content: Alipay.Signer.content(fields), publicKey: merchantKey.publicKey, type: .rsa2))
        #expect(
            !Alipay.Signer.isValidSignature(
                fields["sign"]!, content: Alipay.Signer.content(fields, excluding: ["sign", "sign_type"]), publicKey: merchantKey.publicKey,
                type: .rsa2))
        // Empty values are dropped; names sort by bytes.
        #expect(Alipay.Signer.content(["b": "2", "a": "1", "empty": "", "sign": "x", "B": "3"]) == "B=3&a=1&b=2")
    }

    @Test func legacyResultString() throws {
        let key = TestKeys.rsa(3)
        let content =
            #"partner="2088101568358171"&seller_id="xxx@alipay.com"&out_trade_no="0819145412-6177"&subject="测试"&total_fee="0.01"&success="true""#
        let sign = Base64.encode(try key.signature(for: content, scheme: .insecurePKCS1v1_5SHA1))
        #expect(sign.hasSuffix("="))
        let result = content + #"&sign_type="RSA"&sign=""# + sign + "\""
        #expect(try Alipay.SyncResult.verify(result, publicKey: key.publicKey) == content)
        let tampered = result.replacingOccurrences(of: #"total_fee="0.01""#, with: #"total_fee="100.00""#)
        #expect(throws: PaymentError.self) { try Alipay.SyncResult.verify(tampered, publicKey: key.publicKey) }
        #expect(throws: PaymentError.self) { try Alipay.SyncResult.verify(content, publicKey: key.publicKey) }
        // The JSON shape: a sync result signed over its raw node.
        let node = #"{"code":"10000","msg":"Success","out_trade_no":"C1","total_amount":"0.01"}"#
        let json =
            #"{"alipay_trade_app_pay_response":"# + node + #","sign":""#
            + Base64.encode(try key.signature(for: node, scheme: .insecurePKCS1v1_5SHA256)) + #"","sign_type":"RSA2"}"#
        #expect(try Alipay.SyncResult.verify(json, publicKey: key.publicKey) == node)
    }

    @Test func resultStatusOutcomes() {
        #expect(Alipay.PaymentOutcome(resultStatus: "9000") == .succeeded)
        #expect(Alipay.PaymentOutcome(resultStatus: "8000") == .pending)
        #expect(Alipay.PaymentOutcome(resultStatus: "6004") == .pending)
        #expect(Alipay.PaymentOutcome(resultStatus: "4000") == .failed)
        #expect(Alipay.PaymentOutcome(resultStatus: "5000") == .duplicate)
        #expect(Alipay.PaymentOutcome(resultStatus: "6002") == .networkError)
        #expect(Alipay.PaymentOutcome(resultStatus: "7777") == .unknown("7777"))
        let cancelled = Alipay.PaymentOutcome(resultStatus: "6001")
        #expect(cancelled == .cancelled && !cancelled.mustConfirmWithServer)
        #expect(Alipay.PaymentOutcome(resultStatus: "9000").mustConfirmWithServer)
    }

    @Test func formBodies() throws {
        #expect(try Alipay.FormBody.parse(Array("a=1&b=x+y%26z&c=%E4%B8%AD&d=".utf8)) == ["a": "1", "b": "x y&z", "c": "中", "d": ""])
        for bad in ["a=%G1", "a=%4", "a=1&a=2", "=1", "a=%FF"] {
            #expect(throws: PaymentError.self, "\(bad)") { try Alipay.FormBody.parse(Array(bad.utf8)) }
        }
        #expect(throws: PaymentError.self) { try Alipay.FormBody.parse([UInt8](repeating: 0x61, count: 70_000)) }
        #expect(Alipay.FormBody.escape("a b&中~") == "a%20b%26%E4%B8%AD~")
    }

    @Test func billsRoundTripInGBKAndRefuseTruncationZipsAndBadAmounts() throws {
        let yuan = { (minor: Int64) in Money(minorUnits: minor, currency: .cny) }
        let bill = Alipay.Bill(
            account: "20880000000000010156",
            rows: [
                .init(
                    tradeNo: "2026112922001", outTradeNo: "A1", kind: .trade, subject: "拿铁, 大杯", created: "2026-11-29 10:00:00",
                    finished: "2026-11-29 10:00:05", amount: yuan(5100), fee: yuan(31)),
                .init(
                    tradeNo: "2026112922001", outTradeNo: "A1", kind: .refund, subject: "拿铁, 大杯", created: "2026-11-29 10:00:00",
                    finished: "2026-11-29 11:00:00", amount: yuan(-1000), refundRequestNo: "R1"),
            ])
        let data = bill.gbkData(from: "2026年11月29日 00:00:00", to: "2026年11月30日 00:00:00", exportedAt: "2026年11月30日 09:00:00")
        #expect(String(data: data, encoding: .utf8) == nil, "Alipay's bills are GBK, not UTF-8")
        var parsed = try Alipay.Bill.parse(data)
        // The CSV cannot hold a comma in a cell: Alipay writes a full-width one.
        #expect(parsed.rows[0].subject == "拿铁， 大杯")
        parsed.rows[0].subject = "拿铁, 大杯"
        parsed.rows[1].subject = "拿铁, 大杯"
        #expect(parsed == bill)
        let text = bill.text(from: "a", to: "b", exportedAt: "c")
        #expect(try Alipay.Bill.parse(Data(text.utf8)).rows.count == 2)
        let broken = [
            text.replacingOccurrences(of: "退款合计：1笔", with: "退款合计：2笔"),  // rows lost in transit
            String(text.prefix(while: { $0 != "#" }) + text.split(separator: "\r\n").prefix(6).joined(separator: "\r\n")),  // cut short
            text.replacingOccurrences(of: "51.00", with: "51.0x"),
            text.replacingOccurrences(of: "退款\t", with: "退货\t"),
            text.replacingOccurrences(of: "支付宝交易号", with: "交易号"),
        ]
        for variant in broken {
            #expect(throws: PaymentError.self) { try Alipay.Bill.parse(Data(variant.utf8)) }
        }
        let damaged = #expect(throws: PaymentError.self) { try Alipay.Bill.parse(Data([0x50, 0x4B, 0x03, 0x04, 0, 0])) }
        #expect(damaged?.message.contains("zip archive does not open") == true)
        // As Alipay serves it: a zip of the detail list and its summary, GBK inside and in the names.
        let zipped = try bill.zipData(
            stem: "20880000000000010156_20261129", from: "2026年11月29日 00:00:00", to: "2026年11月30日 00:00:00",
            exportedAt: "2026年11月30日 09:00:00")
        var unzipped = try Alipay.Bill.parse(zipped)
        unzipped.rows[0].subject = "拿铁, 大杯"
        unzipped.rows[1].subject = "拿铁, 大杯"
        #expect(unzipped == bill)
        #expect(unzipped.rows.map(\.fee) == [yuan(31), yuan(0)])
        // A zip without the detail list (only its summary, say) is refused by name.
        let summaryOnly = try ZipArchive.make([
            .init(rawName: Array("x_业务明细(汇总).csv".data(using: String.Encoding(rawValue: 0x8000_0632))!), data: data)
        ])
        let missing = #expect(throws: PaymentError.self) { try Alipay.Bill.parse(summaryOnly) }
        #expect(missing?.message.contains("no 业务明细 CSV") == true)
    }

    @Test func accountStatementsRoundTripZippedAndRefuseWrongTotals() throws {
        let yuan = { (minor: Int64) in Money(minorUnits: minor, currency: .cny) }
        let statement = Alipay.FundFlowBill(
            account: "20880000000000010156",
            rows: [
                .init(
                    flowID: "F1", tradeNo: "T1", outTradeNo: "A1", subject: "拿铁", time: "2026-11-29 10:00:05", income: yuan(5100),
                    expense: .zero(.cny), balance: yuan(5100), type: "在线支付"),
                .init(
                    flowID: "F2", tradeNo: "T1", outTradeNo: "A1", subject: "拿铁", time: "2026-11-29 10:00:05", income: .zero(.cny),
                    expense: yuan(31), balance: yuan(5069), type: "收费"),
            ])
        let zipped = try statement.zipData(stem: "x_20261129", from: "a", to: "b", exportedAt: "c")
        let parsed = try Alipay.FundFlowBill.parse(zipped)
        #expect(parsed == statement)
        #expect(parsed.rows.filter(\.isFee).map(\.expense) == [yuan(31)])
        let text = statement.text(from: "a", to: "b", exportedAt: "c")
        for variant in [
            text.replacingOccurrences(of: "#支出合计：1笔，共0.31元", with: "#支出合计：1笔，共0.32元"),
            text.replacingOccurrences(of: "#收入合计：1笔", with: "#收入合计：2笔"),
            text.replacingOccurrences(of: "账务流水号", with: "流水号"),
            String(text.split(separator: "\r\n").prefix(7).joined(separator: "\r\n")),
        ] {
            #expect(throws: PaymentError.self) { try Alipay.FundFlowBill.parse(Data(variant.utf8)) }
        }
    }

    @Test func formFieldsSortByBytesAndRefuseSplitCharacters() throws {
        // Raw UTF-8 and '=' inside a value; names out of order; a name that sorts after ASCII.
        let body = Array("z=1&%E4%B8%AD=2&a=x%3Dy&b=&sign=S&sign_type=RSA2&m=%E4%B8%AD%E6%96%87".utf8)
        let fields = try Alipay.FormBody.fields(body)
        #expect(fields.pairs.map(\.name) == ["a", "b", "m", "sign", "sign_type", "z", "中"])
        #expect(fields["a"] == "x=y" && fields["中"] == "2" && fields["m"] == "中文" && fields["b"] == "" && fields["missing"] == nil)
        #expect(String(decoding: fields.content(excluding: ["sign", "sign_type"]), as: UTF8.self) == "a=x=y&m=中文&z=1&中=2")
        #expect(String(decoding: fields.content(excluding: ["sign"]), as: UTF8.self) == "a=x=y&m=中文&sign_type=RSA2&z=1&中=2")
        #expect(fields.dictionary == (try Alipay.FormBody.parse(body)))
        // Each field must be UTF-8 on its own, even when the bytes of two neighbours would join up.
        for bad in ["a=%E4%B8&%AD=1", "a=%E4&b=%B8%AD", "%C3=1"] {
            #expect(throws: PaymentError.self, "\(bad)") { try Alipay.FormBody.fields(Array(bad.utf8)) }
        }
        #expect(Alipay.FormFields([(name: "b", value: "2"), (name: "a", value: "1")])?.pairs.map(\.name) == ["a", "b"])
        #expect(Alipay.FormFields([(name: "a", value: "1"), (name: "a", value: "2")]) == nil)
        #expect(Alipay.Signer.content(["b": "2", "a": "1", "sign": "x", "e": ""]) == "a=1&b=2")
    }
}

import Cashier
import Foundation
import TestSupport
import Testing
import UnionPay

/// The raw answer format on hostile input, kept as data with each case's expected answer
/// (Vectors/hostile_responses.json), and the form-encoded format notifications use.
@Suite struct ResponseBodyTests {
    struct Cases: Decodable {
        struct Case: Decodable, Sendable, CustomTestStringConvertible {
            let name: String
            let body: String
            let fields: [String: String]?
            let error: String?
            var testDescription: String { name }
        }
        let cases: [Case]
    }

    static let cases: [Cases.Case] = {
        let url = Bundle.module.url(forResource: "hostile_responses", withExtension: "json", subdirectory: "Vectors")!
        return try! JSONDecoder().decode(Cases.self, from: Data(contentsOf: url)).cases
    }()

    @Test(arguments: cases) func hostileAnswers(item: Cases.Case) {
        do {
            let fields = try UnionPay.ResponseBody.parse(Array(item.body.utf8))
            #expect(item.error == nil, "parsed, but expected \(item.error ?? "")")
            #expect(fields == item.fields)
        } catch let error as PaymentError {
            #expect(error.code == .malformedMessage)
            #expect(item.error.map { error.message.contains($0) } == true, "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func bytesThatAreNotUTF8AndBodiesTooLargeAreRefused() throws {
        #expect(throws: PaymentError.self) { try UnionPay.ResponseBody.parse(Array("a=".utf8) + [0xC3, 0x28]) }
        #expect(throws: PaymentError.self) { try UnionPay.ResponseBody.parse(Array("a=".utf8) + [0xB3, 0xC9]) }  // GBK 成
        let big = Array("a=".utf8) + Array(repeating: UInt8(ascii: "x"), count: UnionPay.ResponseBody.defaultLimit)
        #expect(throws: PaymentError.self) { try UnionPay.ResponseBody.parse(big) }
        #expect(try UnionPay.ResponseBody.parse(big, limit: big.count)["a"]?.count == UnionPay.ResponseBody.defaultLimit)
    }

    /// Whatever the bytes, the parser answers or refuses: it never traps (a fixed-seed sweep of
    /// mutated answers).
    @Test func randomMutationsNeverTrap() throws {
        var (generator, _) = SeededRandom.forTest("UnionPay.ResponseBody mutations")
        let sample = Array("respCode=00&reqReserved={a&b}&riskRateInfo=[x]&signPubKeyCert=-----BEGIN\r\nAB+/=\r\n&tn=1".utf8)
        var parsed = 0
        for _ in 0..<5000 {
            var bytes = sample
            for _ in 0..<Int(generator.next() % 4 + 1) {
                let index = Int(generator.next() % UInt64(bytes.count))
                let pick = "&={}[]\r\n%+ a".utf8.map { $0 }
                bytes[index] = pick[Int(generator.next() % UInt64(pick.count))]
            }
            if (try? UnionPay.ResponseBody.parse(bytes)) != nil { parsed += 1 }
        }
        #expect(parsed > 0 && parsed < 5000)
    }

    @Test func formBodies() throws {
        let body = "orderDesc=%E4%B8%A4%E6%9D%AF+latte&signature=ab%2Bc%2Fd%3D%3D&empty=&flag"
        let fields = try UnionPay.FormBody.parse(Array(body.utf8))
        #expect(fields == ["orderDesc": "两杯 latte", "signature": "ab+c/d==", "empty": "", "flag": ""])
        #expect(try UnionPay.FormBody.parse(Array(UnionPay.FormBody.encode(fields).utf8)) == fields)
        for bad in ["a=%G1", "a=%4", "a=1&a=2", "=1", "a=%C3%28"] {
            #expect(throws: PaymentError.self, "\(bad)") { try UnionPay.FormBody.parse(Array(bad.utf8)) }
        }
    }
}

import Foundation
import Testing

@testable import Cashier

@Suite struct TradeNumberTests {
    @Test func generatedNumbersSatisfyEveryProvider() {
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        var seen = Set<String>()
        for _ in 0..<2000 {
            let number = TradeNumber.generate(date: date)
            #expect(TradeNumber.isValid(number, for: .wechat))
            #expect(TradeNumber.isValid(number, for: .alipay))
            #expect(number.count == 27)
            seen.insert(number)
        }
        #expect(seen.count == 2000)
        #expect(TradeNumber.generate(prefix: "SHOP01", date: date).hasPrefix("SHOP0120261118110640"))
    }

    @Test func wechatRules() throws {
        #expect(TradeNumber.isValid("A_b-c|d*1", for: .wechat))
        #expect(!TradeNumber.isValid("A_b-c|d*1", for: .alipay))
        #expect(TradeNumber.isValid(String(repeating: "a", count: 32), for: .wechat))
        #expect(!TradeNumber.isValid(String(repeating: "a", count: 33), for: .wechat))
        #expect(TradeNumber.isValid(String(repeating: "a", count: 64), for: .alipay))
        #expect(!TradeNumber.isValid(String(repeating: "a", count: 65), for: .alipay))
        #expect(!TradeNumber.isValid("", for: .wechat))
        #expect(!TradeNumber.isValid("订单1", for: .wechat))
        #expect(!TradeNumber.isValid("a b", for: .alipay))
        let error = #expect(throws: MoneyError.self) { try TradeNumber.validate("a.b", for: .wechat) }
        #expect(error?.code == .invalidTradeNumber)
        #expect(error?.message.contains("may contain only") == true)
    }
}

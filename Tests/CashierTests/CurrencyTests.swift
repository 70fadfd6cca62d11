import Testing

@testable import Cashier

@Suite struct CurrencyTests {
    @Test func lookups() throws {
        #expect(try Currency(code: "CNY") == .cny)
        #expect(try Currency(code: "cny") == .cny)
        #expect(try Currency(numericCode: "840") == .usd)
        #expect(try Currency(numericCode: "156") == .cny)
        #expect(try Currency(numericCode: "036").code == "AUD")
        #expect(try Currency(code: "AUD").numericCodeString == "036")
        #expect(Currency.cny.minorUnits == 2)
        #expect(Currency.jpy.minorUnits == 0)
        #expect(try Currency(code: "KWD").minorUnits == 3)
        #expect(try Currency(code: "CLF").minorUnits == 4)
        #expect(Currency.usd.minorUnitsPerMajorUnit == 100)
    }

    @Test(arguments: ["XYZ", "", "CN", "CNYY", "XAU", "XTS"])
    func unknownCodes(_ code: String) {
        let error = #expect(throws: MoneyError.self) { try Currency(code: code) }
        #expect(error?.code == .unknownCurrency)
    }

    @Test(arguments: ["84", "0840", "abc", "999", ""])
    func unknownNumericCodes(_ code: String) {
        #expect(throws: MoneyError.self) { try Currency(numericCode: code) }
    }

    @Test func tableIsConsistent() {
        #expect(Currency.all.count > 150)
        #expect(Set(Currency.all.map(\.code)).count == Currency.all.count)
        #expect(Set(Currency.all.map(\.numericCode)).count == Currency.all.count)
        #expect(Currency.all.allSatisfy { [0, 2, 3, 4].contains($0.minorUnits) && $0.code.count == 3 })
    }

    @Test func countries() throws {
        let china = try CountryCode(alpha2: "cn")
        #expect(china.alpha3 == "CHN")
        #expect(china.numericCode == 156)
        #expect(try CountryCode(alpha2: "US").name == "United States")
        #expect(throws: MoneyError.self) { try CountryCode(alpha2: "XX") }
        #expect(CountryCode.all.count == 249)
    }
}

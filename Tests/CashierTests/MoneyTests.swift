import Foundation
import TestSupport
import Testing

@testable import Cashier

@Suite struct MoneyTests {
    /// Edge values plus a deterministic spread of random ones.
    static func samples() -> [Int64] {
        var generator = SplitMix64(seed: 0x5EED_CA5E)
        var values: [Int64] = [0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power, -power, power - 1, power + 1]
        }
        for _ in 0..<300 { values.append(Int64(bitPattern: generator.next()) >> Int64(generator.next() % 64)) }
        return values
    }

    @Test(arguments: Currency.all)
    func formatThenParseIsIdentity(_ currency: Currency) throws {
        for value in Self.samples() {
            let money = Money(minorUnits: value, currency: currency)
            let text = money.decimalString
            #expect(try Money(decimal: text, currency: currency) == money, "\(text) in \(currency.code)")
            // Exactly the currency's decimal places, and no exponent or grouping.
            let fraction = text.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first
            #expect((fraction?.count ?? 0) == currency.minorUnits)
            #expect(text.allSatisfy { $0.isNumber || $0 == "." || $0 == "-" })
        }
    }

    @Test(arguments: Currency.all)
    func parseThenFormatIsCanonical(_ currency: Currency) throws {
        var generator = SplitMix64(seed: UInt64(currency.numericCode))
        for _ in 0..<200 {
            let major = generator.next() % 1_000_000_000
            var text = String(major)
            if currency.minorUnits > 0 {
                let digits = (0..<currency.minorUnits).map { _ in String(generator.next() % 10) }.joined()
                text += "." + digits
            }
            if generator.next() % 2 == 0 { text = "-" + text }
            let parsed = try Money(decimal: text, currency: currency)
            let expected =
                text == "-0" || text.allSatisfy({ $0 == "-" || $0 == "0" || $0 == "." })
                ? text.replacingOccurrences(of: "-", with: "") : text
            #expect(parsed.decimalString == expected)
        }
    }

    @Test func examples() throws {
        #expect(try Money(decimal: "12.75", currency: .cny).minorUnits == 1275)
        #expect(try Money(decimal: "0.01", currency: .cny).minorUnits == 1)
        #expect(try Money(decimal: "100", currency: .cny).minorUnits == 10000)
        #expect(try Money(decimal: "-3.5", currency: .cny).minorUnits == -350)
        #expect(try Money(decimal: "1.500", currency: .cny).minorUnits == 150)
        #expect(try Money(decimal: "100", currency: .jpy).minorUnits == 100)
        #expect(try Money(decimal: "1.234", currency: Currency(code: "KWD")).minorUnits == 1234)
        #expect(Money(minorUnits: 1, currency: .cny).decimalString == "0.01")
        #expect(Money(minorUnits: -5, currency: .cny).decimalString == "-0.05")
        #expect(Money(minorUnits: 1250, currency: try Currency(code: "KWD")).decimalString == "1.250")
        #expect(Money(minorUnits: 100, currency: .jpy).decimalString == "100")
        #expect(Money(minorUnits: Int64.min, currency: .cny).decimalString == "-92233720368547758.08")
        #expect(Money(minorUnits: 1275, currency: .cny).description == "12.75 CNY")
    }

    @Test(arguments: ["", "-", ".", "1.", ".5", "+1", " 1", "1 ", "1,000.00", "1e3", "0x10", "١٢", "12.7.5", "--1", "1.-5", "NaN", "∞"])
    func malformedAmountsAreRejected(_ text: String) {
        let error = #expect(throws: MoneyError.self) { try Money(decimal: text, currency: .cny) }
        #expect(error?.code == .invalidAmount)
    }

    @Test func tooPreciseIsNeverRounded() {
        let cny = #expect(throws: MoneyError.self) { try Money(decimal: "0.015", currency: .cny) }
        #expect(cny?.code == .tooPrecise)
        #expect(cny?.message.contains("2 decimal places") == true)
        let yen = #expect(throws: MoneyError.self) { try Money(decimal: "1.5", currency: .jpy) }
        #expect(yen?.code == .tooPrecise)
    }

    @Test func overflowIsReportedNotWrapped() throws {
        let max = Money(minorUnits: .max, currency: .cny)
        let one = Money(minorUnits: 1, currency: .cny)
        #expect(throws: MoneyError.self) { try max + one }
        #expect(throws: MoneyError.self) { try Money(minorUnits: .min, currency: .cny) - one }
        #expect(throws: MoneyError.self) { try max * 2 }
        #expect(throws: MoneyError.self) { try Money(minorUnits: .min, currency: .cny).negated() }
        #expect(try Money(decimal: "92233720368547758.07", currency: .cny) == max)
        #expect(try Money(decimal: "-92233720368547758.08", currency: .cny).minorUnits == .min)
        let error = #expect(throws: MoneyError.self) { try Money(decimal: "92233720368547758.08", currency: .cny) }
        #expect(error?.code == .overflow)
        #expect(throws: MoneyError.self) { try Money(decimal: "99999999999999999999999999", currency: .cny) }
        #expect(try (max - one).minorUnits == Int64.max - 1)
    }

    @Test func arithmeticAndComparison() throws {
        let a = try Money(decimal: "12.75", currency: .cny)
        let b = try Money(decimal: "0.25", currency: .cny)
        #expect(try (a + b).decimalString == "13.00")
        #expect(try (a - b).decimalString == "12.50")
        #expect(try (a * 3).decimalString == "38.25")
        #expect(try a.compare(b) > 0)
        #expect(try b.compare(a) < 0)
        #expect(try a.compare(a) == 0)
        #expect(try Money.sum([a, b, b], currency: .cny).decimalString == "13.25")
        #expect(try Money.sum([], currency: .cny) == .zero(.cny))
    }

    @Test func currenciesDoNotMix() throws {
        let yuan = Money(minorUnits: 100, currency: .cny)
        let dollars = Money(minorUnits: 100, currency: .usd)
        let error = #expect(throws: MoneyError.self) { try yuan + dollars }
        #expect(error?.code == .currencyMismatch)
        #expect(throws: MoneyError.self) { try yuan.compare(dollars) }
        #expect(throws: MoneyError.self) { try Money.sum([yuan, dollars], currency: .cny) }
        #expect(yuan != dollars)
    }

    @Test func jsonShape() throws {
        let money = try Money(decimal: "12.75", currency: .cny)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(money), as: UTF8.self) == #"{"amount":"12.75","amount_minor":1275,"currency":"CNY"}"#)
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Money.self, from: Data(#"{"amount":"12.75","currency":"CNY"}"#.utf8)) == money)
        #expect(try decoder.decode(Money.self, from: Data(#"{"amount_minor":1275,"currency":"cny"}"#.utf8)) == money)
        #expect(throws: (any Error).self) {
            try decoder.decode(Money.self, from: Data(#"{"amount":"12.75","amount_minor":1276,"currency":"CNY"}"#.utf8))
        }
        #expect(throws: (any Error).self) { try decoder.decode(Money.self, from: Data(#"{"currency":"CNY"}"#.utf8)) }
        #expect(throws: (any Error).self) { try decoder.decode(Money.self, from: Data(#"{"amount":12.75,"currency":"CNY"}"#.utf8)) }
        #expect(throws: (any Error).self) { try decoder.decode(Money.self, from: Data(#"{"amount":"1","currency":"XYZ"}"#.utf8)) }
    }
}

/// The property tests' generator.
typealias SplitMix64 = SeededRandom

import Cashier
import Foundation
import Testing

@testable import CashierServer

/// The prices the app may order from: each mistake in the catalog names its SKU and field, and
/// a price is exactly what the file says (8.5 or `true` minor units used to become 8 and 1).
@Suite struct CatalogTests {
    /// A latte priced as decimal text and a bagel in minor units.
    static func breakfast() throws -> Catalog {
        try Catalog(
            json: Data(
                #"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"12.75"},"bagel":{"label":"Bagel","amount_minor":800}}}"#
                    .utf8))
    }

    func problem(_ text: String) -> String {
        do {
            _ = try Catalog(json: Data(text.utf8))
            return "accepted"
        } catch let error as PaymentError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func pricesAreReadExactly() throws {
        let catalog = try Self.breakfast()
        #expect(catalog.entries["latte"]?.price == Money(minorUnits: 1275, currency: .cny))
        #expect(catalog.entries["bagel"]?.price == Money(minorUnits: 800, currency: .cny))
        #expect(try catalog.lineItem(sku: "bagel", quantity: 3).amount == Money(minorUnits: 2400, currency: .cny))
        #expect(throws: PaymentError.self) { try catalog.lineItem(sku: "scone", quantity: 1) }
    }

    /// The app's orders, placed at once from the catalog (one price in minor units, one as
    /// decimal text): each is priced from the file, none twice, and the stored totals add up.
    @Test func ordersPlacedAtOnceAreEachPricedFromTheFile() async throws {
        let catalog = try Self.breakfast()
        let fixture = try await ServerFixture(catalog: catalog)
        let answers = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
            for quantity in 1...24 {
                group.addTask {
                    let answer = try await fixture.call(
                        "POST", "/v1/orders", key: fixture.keys.publishable,
                        json: ["items": [["sku": "bagel", "quantity": quantity], ["sku": "latte"]]])
                    let amount = (answer.object["amount"] as? [String: Any])?["amount_minor"] as? Int
                    #expect(answer.status == 201 && amount == 800 * quantity + 1275, "\(answer.object)")
                    return (answer.status, amount.map(Int64.init))
                }
            }
            return try await group.reduce(into: [(Int, Int64?)]()) { $0.append($1) }
        }
        let expected = (1...24).reduce(Int64(0)) { $0 + 800 * Int64($1) + 1275 }
        #expect(answers.allSatisfy { $0.0 == 201 } && answers.compactMap(\.1).reduce(0, +) == expected)
        let stored = try await fixture.store.orders(status: nil, before: nil, limit: 100)
        #expect(stored.count == 24 && stored.map(\.total.minorUnits).reduce(0, +) == expected)
        await fixture.stop()
    }

    @Test func everyMistakeNamesItsSkuAndField() {
        #expect(problem("[]") == "the catalog is not a JSON object")
        #expect(problem(#"{"currency":"yuan","items":{}}"#).hasPrefix("catalog.currency must be an ISO 4217 code"))
        #expect(problem(#"{"currency":"CNY","items":{}}"#).hasPrefix("catalog.items must map each SKU"))
        #expect(problem(#"{"currency":"CNY","items":{"latte":{"amount":"1.00"}}}"#) == "catalog.items.latte.label is missing")
        #expect(
            problem(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"1.005"}}}"#)
                == "catalog.items.latte.amount '1.005' is not an amount in CNY")
        #expect(
            problem(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"1.00","amount_minor":100}}}"#)
                == "catalog.items.latte needs exactly one of amount or amount_minor")
        #expect(
            problem(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount_minor":0}}}"#)
                == "catalog.items.latte must cost more than zero")
        for wrong in ["8.5", "true", #""800""#, "1e30"] {
            #expect(
                problem(#"{"currency":"CNY","items":{"bagel":{"label":"Bagel","amount_minor":"# + wrong + "}}}")
                    == "catalog.items.bagel.amount_minor must be a whole number of minor units", "\(wrong)")
        }
    }
}

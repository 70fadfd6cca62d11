import Foundation
import Testing

@testable import CashierServer

/// A body of the wrong shape is refused naming the field and what it takes: `"quantity": "2"`,
/// `"expires_in": true`, `"items": {…}` and `"metadata": [1]` used to say "expected another type".
@Suite struct RequestProblemTests {
    func explained(_ body: String) -> String? {
        do {
            _ = try JSONDecoder().decode(OrderRequest.self, from: Data(body.utf8))
            return nil
        } catch let error as DecodingError {
            return RequestProblem.explain(error)
        } catch {
            return "\(error)"
        }
    }

    @Test func eachFieldSaysWhatItTakes() {
        let item = #"{"label":"Tea","amount":"1.00"}"#
        #expect(explained(#"{"items":[\#(item)],"currency":"CNY"}"#) == nil)
        #expect(
            explained(#"{"items":[{"label":"Tea","amount":"1.00","quantity":"2"}],"currency":"CNY"}"#)
                == "items[0].quantity: expected a whole number")
        #expect(explained(#"{"items":[\#(item)],"currency":"CNY","expires_in":true}"#) == "expires_in: expected a whole number")
        #expect(
            explained(#"{"items":[{"label":"Tea","amount_minor":[100]}],"currency":"CNY"}"#)
                == "items[0].amount_minor: expected a whole number")
        #expect(explained(#"{"items":{"label":"Tea"},"currency":"CNY"}"#) == "items: expected a list")
        #expect(explained(#"{"items":["Tea"],"currency":"CNY"}"#) == "items[0]: expected an object")
        #expect(explained(#"{"items":[\#(item)],"currency":"CNY","metadata":[1]}"#) == "metadata: expected an object")
        #expect(explained(#"{"items":[\#(item)],"currency":1}"#) == "currency: expected a string")
        #expect(explained(#"{"items":[\#(item)],"currency":"CNY","metadata":{"a":1}}"#) == "metadata.a: expected a string")
        #expect(explained(#"{"currency":"CNY"}"#) == "items is missing")
        // Fractions keep their own words.
        #expect(
            explained(#"{"items":[\#(item)],"currency":"CNY","expires_in":60.5}"#)
                == "expires_in: expected a number that fits (a whole number within 64 bits)")
    }

    @Test func swiftTypesAreNamedInTheRequestsWords() {
        #expect(RequestProblem.describe(Int64.self) == "a whole number" && RequestProblem.describe(UInt16.self) == "a whole number")
        #expect(RequestProblem.describe(Double.self) == "a number" && RequestProblem.describe(Bool.self) == "true or false")
        #expect(RequestProblem.describe([Any].self) == "a list" && RequestProblem.describe([String: Any].self) == "an object")
        #expect(RequestProblem.describe(String.self) == "a string")
    }
}

import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// `cashier serve --config` refuses a key that is not a setting: a misspelt `webhook` or
/// `query_after_seconds` used to be ignored, so the merchant ran without webhooks, or with the
/// default, and never heard why.
@Suite struct ConfigurationFileKeysTests {
    /// Every key of `shape`, at any depth.
    static func allKeys(_ shape: [String: ConfigurationFile.Shape]) -> Set<String> {
        var keys = Set(shape.keys)
        for value in shape.values {
            switch value {
            case .value: break
            case .object(let nested), .objects(let nested): keys.formUnion(allKeys(nested))
            }
        }
        return keys
    }

    func problem(_ object: [String: Any]) -> String {
        do {
            try ConfigurationFile.checkKeys(try ConfigurationFile.object(object), ConfigurationFile.knownKeys)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    /// The readers name their keys as string literals; each one is listed (or is one of the few
    /// values they compare with), so no setting the server reads is refused as unknown.
    @Test func everyKeyTheReadersNameIsKnown() throws {
        let folder = packageRoot.appendingPathComponent("Sources/CashierServer/Configuration")
        let literal = try NSRegularExpression(pattern: #""([a-z][a-z0-9_]*)""#)
        let values: Set<String> = ["automatic", "manual", "live", "test", "sandbox", "https", "seconds", "pk_", "rk_", "sk_", "whsec_"]
        let known = Self.allKeys(ConfigurationFile.knownKeys)
        var named = Set<String>()
        for file in ["ConfigurationFile.swift", "ConfigurationFile+Providers.swift", "ConfigurationFile+ApplePay.swift"] {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let line = String(line)
                for match in literal.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    if let range = Range(match.range(at: 1), in: line) { named.insert(String(line[range])) }
                }
            }
        }
        #expect(named.count > 100, "the scan found \(named.count) literals")
        #expect(named.isSuperset(of: ["webhook", "query_after_seconds", "hmac_key_env", "shipping_methods"]))
        let unlisted = named.subtracting(values).subtracting(known).sorted()
        #expect(unlisted.isEmpty, "read by the configuration but not in ConfigurationFile.knownKeys: \(unlisted)")
    }

    /// The first JSON block after the heading containing `heading` in the document at `path`.
    func example(in path: String, under heading: String) throws -> [String: Any] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        let section = try #require(text.range(of: heading), "\(path) has no '\(heading)'")
        let start = try #require(text.range(of: "```json\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return try #require(try JSONSerialization.jsonObject(with: Data(text[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
    }

    /// The complete example in docs/configuration.md has no key the server would refuse.
    @Test func theCompleteExampleIsAccepted() throws {
        let example = try example(in: "docs/configuration.md", under: "## A complete example")
        #expect(example["applepay"] != nil && example["jobs"] != nil)
        #expect(problem(example) == "accepted")
    }

    /// Nor has the README's minimal one, under "Going live".
    @Test func theReadmesMinimalExampleIsAccepted() throws {
        let example = try example(in: "README.md", under: "## Going live")
        #expect(example["public_base_url"] != nil && example["secret_key_env"] != nil && example["webhook"] != nil)
        #expect(problem(example) == "accepted")
    }

    @Test func aMisspeltKeyIsRefusedWithWhatItWasMeantToBe() {
        let base: [String: Any] = ["secret_key_env": "CASHIER_SECRET_KEY", "publishable_key": "pk_x", "public_base_url": "https://x"]
        func with(_ key: String, _ value: Any) -> [String: Any] { base.merging([key: value]) { $1 } }
        #expect(problem(base) == "accepted")
        #expect(
            problem(with("webhok", ["url": "https://shop.example.com/hooks"]))
                == #"config: webhok: is not a setting: did you mean webhook? (a key starting with "_" is a comment)"#)
        #expect(
            problem(with("jobs", ["query_after_secnds": 5])).hasPrefix(
                "config: jobs.query_after_secnds: is not a setting: did you mean query_after_seconds?"))
        #expect(problem(with("applePay", [:])).hasPrefix("config: applePay: is not a setting: did you mean applepay?"))
        #expect(problem(with("wechat-v3", [:])).hasPrefix("config: wechat-v3: is not a setting: did you mean wechat_v3?"))
        // Nothing close: the object's keys when they are few, the README when they are many.
        #expect(
            problem(with("webhook", ["url": "https://shop.example.com/hooks", "retries": 3]))
                == #"config: webhook.retries: is not a setting: this object takes concurrency, secret, secret_env, secret_file, url (a key starting with "_" is a comment)"#
        )
        #expect(problem(with("colour", "blue")).hasPrefix("config: colour: is not a setting: see the README's configuration"))
        // In lists of objects, with the element's index.
        #expect(
            problem(with("coupons", [["code": "A", "label": "A", "percent_off": 5], ["code": "B", "label": "B", "precent_off": 5]]))
                .hasPrefix("config: coupons[1].precent_off: is not a setting: did you mean percent_off?"))
        #expect(
            problem(with("applepay", ["shipping_methods": [["identifier": "std", "label": "Std", "amount": "0", "price": "1"]]]))
                .hasPrefix("config: applepay.shipping_methods[0].price: is not a setting"))
        // Comments, at any depth.
        #expect(problem(with("_comment", "production").merging(["jobs": ["_note": "defaults otherwise"]]) { $1 }) == "accepted")
    }

    /// A section given as something other than an object was skipped as if absent.
    @Test func aSectionOfTheWrongShapeIsRefused() {
        let base: [String: Any] = ["secret_key_env": "CASHIER_SECRET_KEY", "publishable_key": "pk_x", "public_base_url": "https://x"]
        #expect(problem(base.merging(["wechat": "wx123"]) { $1 }) == "config: wechat: must be an object")
        #expect(problem(base.merging(["jobs": [5]]) { $1 }) == "config: jobs: must be an object")
        #expect(problem(base.merging(["merchants": ["id": "north"]]) { $1 }) == "config: merchants: must be a list of objects")
        #expect(problem(base.merging(["coupons": ["WELCOME10"]]) { $1 }) == "config: coupons[0]: must be an object")
        #expect(
            problem(base.merging(["service_provider": ["alipay": true]]) { $1 }) == "config: service_provider.alipay: must be an object")
    }

    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        #expect(KeySuggestion.editDistance("webhook", "webhok") == 1)
        #expect(KeySuggestion.editDistance("kitten", "sitting") == 3)
        #expect(KeySuggestion.editDistance("", "abc") == 3 && KeySuggestion.editDistance("abc", "") == 3)
        #expect(KeySuggestion.editDistance("same", "same") == 0)
    }
}

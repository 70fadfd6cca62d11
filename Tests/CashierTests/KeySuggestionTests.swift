import Cashier
import Testing

/// The key a mistyped one was meant to be: close in spelling, or the same but for case and
/// separators; none for a key nothing is close to, however long.
@Suite struct KeySuggestionTests {
    @Test func theClosestKnownKeyIsSuggested() {
        let known = ["amount", "amount_minor", "payment", "reason"]
        #expect(KeySuggestion.closest(to: "amout", among: known) == "amount")
        #expect(KeySuggestion.closest(to: "Amount-Minor", among: known) == "amount_minor")
        #expect(KeySuggestion.closest(to: "paymnet", among: known) == "payment")
        #expect(KeySuggestion.closest(to: "captured", among: known) == nil)
        #expect(KeySuggestion.closest(to: "", among: known) == nil)
    }

    /// A request's key can be as long as its body: it is neither compared character by character
    /// with every known key nor quoted whole.
    @Test func aHugeKeyIsNeitherComparedNorQuotedWhole() {
        let huge = String(repeating: "a", count: 1_000_000)
        #expect(KeySuggestion.closest(to: huge, among: ["amount", "reason"]) == nil)
        #expect(KeySuggestion.closest(to: "amount" + String(repeating: "x", count: 40), among: ["amount"]) == nil)
        let quoted = KeySuggestion.quoted(huge)
        #expect(quoted.count == 65 && quoted.hasSuffix("…"))
        #expect(KeySuggestion.quoted("amout") == "amout")
    }
}

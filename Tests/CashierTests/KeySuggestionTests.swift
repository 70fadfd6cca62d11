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

    /// What a message adds after "… is not a field": the guess, else the few keys there are, or
    /// that there are none; nothing when there are too many to list.
    @Test func theHintNamesTheGuessOrTheFewKnownKeys() {
        #expect(KeySuggestion.hint(for: "amout", among: ["amount", "reason"]) == ": did you mean amount?")
        #expect(KeySuggestion.hint(for: "captured", among: ["reason", "amount"]) == ": it takes amount, reason")
        #expect(KeySuggestion.hint(for: "captured", among: [String]()) == ": it takes none")
        #expect(KeySuggestion.hint(for: "captured", among: (1...13).map { "key\($0)" }) == "")
    }
}

import Cashier

/// Random letters and digits for record ids and provider numbers.
enum RandomID {
    static func make(_ count: Int) -> String {
        RandomText.string(count: count, alphabet: RandomText.alphanumerics)
    }
}

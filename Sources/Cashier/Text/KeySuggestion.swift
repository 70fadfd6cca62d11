/// The known key a mistyped one was probably meant to be: the closest in spelling, at most two
/// edits away, or the same ignoring case, `-` and `_`. Used for the configuration file's keys,
/// the request bodies' fields and the query parameters alike.
public enum KeySuggestion {
    /// The best guess among `known`, or `nil` when none is close.
    public static func closest(to key: String, among known: some Sequence<String>) -> String? {
        func folded(_ text: String) -> String { text.lowercased().filter { $0 != "_" && $0 != "-" } }
        return known.map { (name: $0, distance: folded($0) == folded(key) ? 0 : editDistance($0, key)) }
            .filter { $0.distance <= 2 }
            .min { ($0.distance, $0.name) < ($1.distance, $1.name) }?.name
    }

    /// Levenshtein distance between two short keys, by characters.
    public static func editDistance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

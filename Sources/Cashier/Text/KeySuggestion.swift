/// The known key a mistyped one was probably meant to be: the closest in spelling, at most two
/// edits away, or the same ignoring case, `-` and `_`. Used for the configuration file's keys,
/// the request bodies' fields and the query parameters alike.
public enum KeySuggestion {
    /// The best guess among `known`, or `nil` when none is close. A key much longer than any known
    /// one (a request's, up to the body's size) is not compared character by character: it costs
    /// no more than a short one.
    public static func closest(to key: String, among known: some Collection<String>) -> String? {
        func folded(_ text: String) -> String { text.lowercased().filter { $0 != "_" && $0 != "-" } }
        let longest = known.reduce(0) { max($0, $1.count) }
        guard key.utf8.count <= 4 * longest + 8 else { return nil }
        let given = folded(key)
        return known.compactMap { name -> (name: String, distance: Int)? in
            if folded(name) == given { return (name, 0) }
            // The distance is at least the difference in length: only near lengths are worth comparing.
            guard abs(name.count - key.count) <= 2 else { return nil }
            return (name, editDistance(name, key))
        }
        .filter { $0.distance <= 2 }
        .min { ($0.distance, $0.name) < ($1.distance, $1.name) }?.name
    }

    /// What follows "`key` is not a …" in a message: the known key probably meant
    /// (`: did you mean amount?`), else the known ones when they are few (`: it takes limit,
    /// status`, `: it takes none`), else nothing.
    public static func hint(for key: String, among known: some Collection<String>) -> String {
        if let guess = closest(to: key, among: known) { return ": did you mean \(guess)?" }
        if known.isEmpty { return ": it takes none" }
        return known.count <= 12 ? ": it takes \(known.sorted().joined(separator: ", "))" : ""
    }

    /// `key` as a message may quote it: at most 64 characters (a request's key can be as long as its body).
    public static func quoted(_ key: String) -> String {
        key.count <= 64 ? key : key.prefix(64) + "…"
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

import Cashier

/// A provider's bill for a day, as the reconciler's entries read one line at a time: a bill of
/// millions of lines is not held as rows.
struct BillLines {
    private var read: () throws -> BillEntry?

    /// Lines read by `next` until it returns `nil`.
    init(next: @escaping () throws -> BillEntry?) {
        read = next
    }

    /// A bill already in memory (a processor's list, a short settlement file).
    init(_ entries: [BillEntry]) {
        var iterator = entries.makeIterator()
        read = { iterator.next() }
    }

    /// The next line; `nil` at the end of the bill.
    /// - Throws: the parser's error for a line that does not fit, or a bill found truncated at its end.
    mutating func next() throws -> BillEntry? {
        try read()
    }
}

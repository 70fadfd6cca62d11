import Cashier

extension Alipay {
    /// A form's fields sorted by name in byte order, names unique: the order Alipay signs them in.
    ///
    /// The decoded names and values live in one byte buffer, so a notification is sorted and its
    /// signed content built without making a string per field; strings are made on lookup.
    public struct FormFields: Sendable, Sequence {
        public typealias Element = (name: String, value: String)

        /// Where one field's name and value sit in `storage`.
        typealias Span = FieldSpan

        private let storage: [UInt8]
        private let spans: [Span]

        /// Sorts decoded fields; `nil` when a name appears twice. Every range must lie in `storage`.
        init?(storage: [UInt8], spans unsorted: [Span]) {
            let sorted = storage.withUnsafeBufferPointer { bytes in
                unsorted.sorted { Self.compare(bytes, $0.name, bytes, $1.name) < 0 }
            }
            let repeated = storage.withUnsafeBufferPointer { bytes in
                sorted.indices.dropFirst().contains { Self.compare(bytes, sorted[$0 - 1].name, bytes, sorted[$0].name) == 0 }
            }
            guard !repeated else { return nil }
            self.storage = storage
            self.spans = sorted
        }

        /// Sorts fields; `nil` when a name appears twice.
        public init?(_ fields: some Sequence<Element>) {
            let (storage, spans) = FieldSpan.pack(fields)
            self.init(storage: storage, spans: spans)
        }

        /// How many fields there are.
        public var count: Int { spans.count }

        /// The fields, sorted by the UTF-8 bytes of their names.
        public var pairs: [Element] { spans.map { (text($0.name), text($0.value)) } }

        /// The fields as a dictionary.
        public var dictionary: [String: String] {
            Dictionary(uniqueKeysWithValues: spans.lazy.map { (text($0.name), text($0.value)) })
        }

        public func makeIterator() -> IndexingIterator<[Element]> { pairs.makeIterator() }

        /// The value of `name`, if present (a binary search over the sorted names).
        public subscript(name: String) -> String? {
            var key = name
            return key.withUTF8 { key in
                storage.withUnsafeBufferPointer { bytes in
                    var low = 0
                    var high = spans.count
                    while low < high {
                        let middle = (low + high) / 2
                        let order = Self.compare(bytes, spans[middle].name, key, 0..<key.count)
                        if order == 0 { return text(spans[middle].value) }
                        if order < 0 { low = middle + 1 } else { high = middle }
                    }
                    return nil
                }
            }
        }

        /// `k=v&k=v` over the non-empty fields, without the `excluded` names, as UTF-8 bytes.
        public func content(excluding excluded: [String]) -> [UInt8] {
            let excludedNames = excluded.map { Array($0.utf8) }
            return storage.withUnsafeBufferPointer { source in
                [UInt8](unsafeUninitializedCapacity: storage.count + 2 * spans.count) { out, written in
                    func append(_ range: Range<Int>) {
                        guard let from = source.baseAddress, let to = out.baseAddress else { return }
                        (to + written).initialize(from: from + range.lowerBound, count: range.count)
                        written += range.count
                    }
                    for span in spans where !span.value.isEmpty {
                        let isExcluded = excludedNames.contains { name in
                            name.withUnsafeBufferPointer { Self.compare(source, span.name, $0, 0..<$0.count) == 0 }
                        }
                        if isExcluded { continue }
                        if written > 0 {
                            out[written] = UInt8(ascii: "&")
                            written += 1
                        }
                        append(span.name)
                        out[written] = UInt8(ascii: "=")
                        written += 1
                        append(span.value)
                    }
                }
            }
        }

        private func text(_ range: Range<Int>) -> String {
            storage.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        }

        /// Byte order (code point order for UTF-8) of two ranges: negative, zero or positive.
        static func compare(
            _ left: UnsafeBufferPointer<UInt8>, _ leftRange: Range<Int>, _ right: UnsafeBufferPointer<UInt8>, _ rightRange: Range<Int>
        ) -> Int {
            let length = Swift.min(leftRange.count, rightRange.count)
            for offset in 0..<length {
                let a = left[leftRange.lowerBound + offset]
                let b = right[rightRange.lowerBound + offset]
                if a != b { return a < b ? -1 : 1 }
            }
            return leftRange.count - rightRange.count
        }
    }
}

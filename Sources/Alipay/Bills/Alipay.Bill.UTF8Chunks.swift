import Foundation

extension Alipay.Bill {
    /// A bill's chunks as UTF-8, whichever Alipay wrote (GBK, as it does, or UTF-8): each chunk
    /// is turned into UTF-8 up to its last line end (the rest waits for the next chunk, so no
    /// character is cut), a few hundred kilobytes at a time instead of a line at a time — each
    /// conversion opens a converter, and a bill has millions of lines. The encoding is decided
    /// by the first text that is not ASCII: UTF-8 if it is valid UTF-8, GBK otherwise, and the
    /// whole file is read as that one.
    final class UTF8Chunks {
        private let source: () throws -> [UInt8]?
        private var pending: [UInt8] = []
        private var ended = false
        private var gbk: Bool?

        init(_ source: @escaping () throws -> [UInt8]?) {
            self.source = source
        }

        /// The next chunk as UTF-8; `nil` at the end.
        /// - Throws: `PaymentError.malformedMessage` for text in neither encoding; what the source throws.
        func next() throws -> [UInt8]? {
            while true {
                if let end = pending.lastIndex(of: 0x0A) {
                    let whole = Array(pending[...end])
                    pending.removeSubrange(...end)
                    return try utf8(whole)
                }
                if ended {
                    guard !pending.isEmpty else { return nil }
                    defer { pending = [] }
                    return try utf8(pending)
                }
                if let chunk = try source() { pending += chunk } else { ended = true }
            }
        }

        private func utf8(_ bytes: [UInt8]) throws -> [UInt8] {
            if gbk == nil, bytes.contains(where: { $0 >= 0x80 }) { gbk = String(validating: bytes, as: UTF8.self) == nil }
            if gbk == true {
                guard let text = String(data: Data(bytes), encoding: Alipay.Bill.Reader.gbk) else {
                    throw Alipay.Bill.failure("the bill is neither UTF-8 nor GBK text")
                }
                return Array(text.utf8)
            }
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw Alipay.Bill.failure("the bill is neither UTF-8 nor GBK text")
            }
            return bytes
        }
    }
}

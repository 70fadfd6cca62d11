import Foundation
import Testing

@testable import Cashier

@Suite struct RandomTextTests {
    /// Pearson's statistic of `counts` against equal expectations.
    private func chiSquare(_ counts: [Int]) -> Double {
        let total = Double(counts.reduce(0, +))
        let expected = total / Double(counts.count)
        return counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    }

    @Test func stringsHaveTheLengthAndOnlyTheAlphabetAndDoNotRepeat() {
        var seen = Set<String>()
        for _ in 0..<5000 {
            let id = RandomText.string(count: 24, alphabet: RandomText.alphanumerics)
            #expect(id.utf8.count == 24)
            #expect(id.utf8.allSatisfy { RandomText.alphanumerics.contains($0) })
            seen.insert(id)
        }
        #expect(seen.count == 5000)
        #expect(RandomText.string(count: 0, alphabet: RandomText.alphanumerics).isEmpty)
    }

    @Test func everyCharacterIsEquallyLikely() {
        // 62 symbols do not divide 256: without redrawing bytes 248…255, the first eight symbols
        // would come up 5/4 as often, a statistic near 1,500. 61 degrees of freedom: the
        // statistic averages 61, and 150 is passed by chance about once in a billion runs.
        let sample = RandomText.string(count: 200_000, alphabet: RandomText.alphanumerics)
        var counts = [Int](repeating: 0, count: 62)
        for byte in sample.utf8 { counts[RandomText.alphanumerics.firstIndex(of: byte)!] += 1 }
        #expect(chiSquare(counts) < 150, "\(counts)")

        let three = Array("abc".utf8)  // 256 % 3 == 1: byte 255 is redrawn
        let small = RandomText.string(count: 30_000, alphabet: three)
        let smallCounts = three.map { symbol in small.utf8.filter { $0 == symbol }.count }
        #expect(chiSquare(smallCounts) < 40, "\(smallCounts)")

        let ascii = (0...127).map { UInt8($0) }  // divides 256: every byte is used
        #expect(RandomText.string(count: 1000, alphabet: ascii).utf8.count == 1000)
    }

    @Test func hexIsLowercaseTwoDigitsAByteAndUsesEveryByteOfADraw() {
        var seen = Set<String>()
        var digitCounts = [Int](repeating: 0, count: 16)
        var repeatedBytes = 0
        let digits = Array("0123456789abcdef".utf8)
        for _ in 0..<10_000 {
            let text = RandomText.hex(byteCount: 16)
            #expect(text.utf8.count == 32)
            let values = text.utf8.map { digits.firstIndex(of: $0) }
            #expect(values.allSatisfy { $0 != nil }, "\(text)")
            for value in values.compactMap({ $0 }) { digitCounts[value] += 1 }
            let bytes = stride(from: 0, to: 32, by: 2).map { (values[$0] ?? 0) * 16 + (values[$0 + 1] ?? 0) }
            repeatedBytes += zip(bytes, bytes.dropFirst()).filter { $0 == $1 }.count
            seen.insert(text)
        }
        #expect(seen.count == 10_000)
        // 15 neighbouring pairs a draw, equal with probability 1/256: about 590 in all. Taking
        // one byte of a 64-bit draw eight times over would make seven in eight pairs equal.
        #expect(repeatedBytes < 1000)
        #expect(chiSquare(digitCounts) < 80, "\(digitCounts)")
    }
}

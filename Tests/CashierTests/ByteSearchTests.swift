import Cashier
import Testing

/// The byte search that tells a WeChat Pay refund result from a payment notification.
@Suite struct ByteSearchTests {
    @Test func findsANeedleAnywhereAndNothingElse() {
        let hay = Array("<xml><req_info>abc</req_info></xml>".utf8)
        #expect(ByteSearch.contains(hay, Array("<req_info>".utf8)))
        #expect(ByteSearch.contains(hay, Array("<xml>".utf8)))  // at the start
        #expect(ByteSearch.contains(hay, Array("</xml>".utf8)))  // at the end
        #expect(!ByteSearch.contains(hay, Array("<req_infO>".utf8)))
        #expect(!ByteSearch.contains(Array("<req_info".utf8), Array("<req_info>".utf8)))  // cut short
        #expect(ByteSearch.contains(Array("aab".utf8), Array("ab".utf8)))  // a false start
        #expect(ByteSearch.contains([], []) && !ByteSearch.contains([], [1]))
        // Agrees with the generic search on many random cases.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let hay = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...2, using: &generator) }
            let needle = (0..<Int.random(in: 1..<4, using: &generator)).map { _ in UInt8.random(in: 0...2, using: &generator) }
            #expect(ByteSearch.contains(hay, needle) == (hay.firstRange(of: needle) != nil))
        }
    }
}

import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// An order's metadata reads back exactly as it was given, whatever its strings hold, and a
/// stored value that is not an object of strings reads as none — as `JSONDecoder` read it before
/// the store read it with ``JSONReader``.
@Suite struct OrderMetadataTests {
    typealias Backend = OrderStoreTests.Backend

    static let awkward: [String: String] = [
        "quote": #"say "hi""#, "backslash": #"C:\orders\7"#, "lines": "one\ntwo\tthree\r", "accents": "café crème",
        "emoji": "🧾😀", "cjk": "拿铁两杯", "empty": "", "slash": "a/b", "control": "\u{01}\u{1F}", "json": #"{"not":"parsed"}"#,
        "": "an empty key",
    ]

    @Test(arguments: Backend.available)
    func metadataReadsBackExactly(backend: Backend) async throws {
        let store = try await backend.store()
        var new = OrderStoreTests.newOrder()
        new.metadata = Self.awkward
        let order = try await store.create(new)
        #expect(order.metadata == Self.awkward)
        #expect(try await store.order(id: order.id)?.metadata == Self.awkward)
        // The joined read a notification's transaction makes.
        let start = try await store.beginPayment(NewPayment(orderID: order.id, method: .wechatNative, provider: .wechatV2), now: Date())
        let placed = try await store.recordPayment(.placed, of: start.payment.id, record: .init(kind: .paymentStarted), now: Date())
        #expect(placed.order.metadata == Self.awkward)
        var plain = OrderStoreTests.newOrder()
        plain.metadata = [:]
        #expect(try await store.order(id: try await store.create(plain).id)?.metadata == [:])
    }

    /// Stored texts the store did not write itself (an older version, a hand edit, another
    /// encoder's escapes): each reads as `JSONDecoder` reads it as `[String: String]`, or as none.
    @Test(arguments: [
        #"{"a":"\u00e9\ud83d\ude00","b":"x"}"#, #"{"s":"a\/b","t":"\t\"\\"}"#, #" { "spaced" : "yes" } "#, "{}", #"{"n":1}"#,
        #"{"a":"x","n":null}"#, #"{"o":{"p":"q"}}"#, #"["a"]"#, #""a""#, "not json", "", #"{"a":"x"} trailing"#,
        #"{"lone":"\ud83d"}"#, #"{"k":"v","k2":"\u0000"}"#,
    ])
    func storedTextReadsAsJSONDecoderReadsIt(text: String) {
        let decoded = (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
        #expect(StoredOrder.metadata(fromJSON: text) == decoded, "\(text)")
    }

    @Test func anObjectOfStringsIsRead() {
        #expect(StoredOrder.metadata(fromJSON: #"{"a":"\u00e9\ud83d\ude00","b":"x"}"#) == ["a": "é😀", "b": "x"])
        #expect(StoredOrder.metadata(fromJSON: #"{"a":"x","n":1}"#) == [:])
        #expect(StoredOrder.metadata(fromJSON: "{}") == [:])
        // Strict where Foundation's decoder is lenient: no version wrote a trailing comma.
        #expect(StoredOrder.metadata(fromJSON: #"{"a":"x",}"#) == [:])
    }
}

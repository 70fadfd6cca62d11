import CashierHTTP
import Foundation
import Testing

/// Inputs the libFuzzer targets (Fuzz/, `make check-long`) found, kept as regression tests.
@Suite struct FuzzRegressionTests {
    @Test func aFormBodyWithBytesThatAreNotEscapesIsReadWithoutATrap() {
        // FuzzHTTPRequest: URLComponents.percentEncodedQuery traps on this body; a POST to any form would have stopped the server.
        let hostile = HTTPServerRequest(
            method: "POST", path: "/dashboard/login", body: [0x5B, 0xFF, 0xFF, 0xFF, 0x0A, 0x20, 0x25, 0x7A, 0x7A])
        #expect(hostile.formFields.isEmpty)
        let mixed = HTTPServerRequest(method: "POST", path: "/", body: Array("a=1&b=%zz&c=x+y%21&d&=e&%FF=1".utf8))
        #expect(mixed.formFields == ["a": "1", "c": "x y!", "d": "", "": "e"])
    }

    @Test func aTargetsQueryIsNeverPartOfThePath() {
        // FuzzHTTPRequest: an absolute-form target with a query kept it in the path.
        #expect(HTTPServerRequest.path(ofTarget: "<?php echo 1; ?>") == "<?php echo 1; ?>")
        #expect(HTTPServerRequest.path(ofTarget: "http://127.0.0.1:8080/v1/orders/a?b#x") == "/v1/orders/a?b#x")
        // Decoded escapes are part of the path (the query was split off before decoding).
        #expect(HTTPServerRequest.path(ofTarget: "/v1/orders/B#/close") == "/v1/orders/B#/close")
    }
}

import CashierHTTP
import Foundation

/// What the HTTP layer does with a request before any route: the target's path, the query, a
/// form body and a JSON body, from bytes split as target, newline, body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let split = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let target = String(decoding: bytes[..<split], as: UTF8.self)
    let body = Array(bytes[min(split + 1, bytes.count)...])
    // The target as libmicrohttpd hands it over: the query already split off and the escapes
    // decoded, so a `?` or `#` left in it came from `%3F` or `%23` and belongs to the path.
    let path = HTTPServerRequest.path(ofTarget: target)
    if target.utf8.first == UInt8(ascii: "/") || !target.contains("://") {
        precondition(path == target, "a path that is not absolute-form must be kept whole")
    } else {
        precondition(path.hasPrefix("/"), "an absolute-form target must reduce to a path")
    }
    let request = HTTPServerRequest(method: "POST", path: path, query: [(name: "q", value: target)], body: body)
    _ = request.queryValue("q")
    _ = request.formFields
    struct Body: Decodable { let method: String? }
    _ = try? request.decodeJSON(Body.self)
    return 0
}

import Cashier
import CashierHTTP
import CashierServer
import Foundation

/// Requests answered in process by ``MerchantServer/handle(_:)``: no socket, the whole router
/// and its middleware, the peer's address chosen by the test (what a throttle counts by).
enum InProcess {
    /// A request as the HTTP layer hands one over: the path, its query decoded, the peer's address.
    /// - Parameters:
    ///   - target: a path with an optional query (`/pay/ord_1?client_secret=…&returned=1`).
    ///   - form: a form body (`application/x-www-form-urlencoded`), encoded here.
    ///   - json: a JSON body.
    static func request(
        _ method: String, _ target: String, headers: [String: String] = [:], json: Any? = nil, form: [(String, String)]? = nil,
        body: [UInt8] = [], from address: String = "127.0.0.1"
    ) -> HTTPServerRequest {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query: [(name: String, value: String)] =
            parts.count < 2
            ? []
            : parts[1].split(separator: "&").map { pair in
                let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in String(text).removingPercentEncoding ?? String(text) }
                return (decode(halves[0]), halves.count > 1 ? decode(halves[1]) : "")
            }
        var all = HTTPHeaders()
        for (name, value) in headers { all.add(name, value) }
        var bytes = body
        if let json, let data = try? JSONSerialization.data(withJSONObject: json) {
            bytes = Array(data)
            all.add("Content-Type", "application/json")
        }
        if let form {
            bytes = Array(form.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
            all.add("Content-Type", "application/x-www-form-urlencoded")
        }
        var request = HTTPServerRequest(method: method, path: String(parts[0]), query: query, headers: all, body: bytes)
        request.remoteAddress = address
        return request
    }

    /// A form value, percent-encoded.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// `Authorization: Bearer key`.
    static func bearer(_ key: String) -> [String: String] { ["Authorization": "Bearer \(key)"] }
}

extension MerchantServer {
    /// ``InProcess/request(_:_:headers:json:form:body:from:)``, answered in process.
    func call(
        _ method: String, _ target: String, headers: [String: String] = [:], json: Any? = nil, form: [(String, String)]? = nil,
        from address: String = "127.0.0.1"
    ) async -> HTTPServerResponse {
        await respond(InProcess.request(method, target, headers: headers, json: json, form: form, from: address))
    }

    /// ``handle(_:)``, with a file answer (an export) read into the body and its file removed, as
    /// sending it over a socket would: nothing is left in the temporary folder.
    func respond(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        var response = await handle(request)
        if let path = response.bodyFile {
            response.body = FileManager.default.contents(atPath: path).map(Array.init) ?? []
            try? FileManager.default.removeItem(atPath: path)
            response.bodyFile = nil
        }
        return response
    }
}

extension HTTPServerResponse {
    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The API error's code, when the body is one.
    var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
}

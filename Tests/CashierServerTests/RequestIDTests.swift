import Cashier
import CashierHTTP
import CashierSandboxMode
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierServer

/// Request ids (`X-Request-Id`): taken from the request when sane, made otherwise, returned in
/// the answer, named by the access log and by the log line of every provider call the request's
/// handler made — and the log's two formats.
@Suite struct RequestIDTests {
    @Test(arguments: [
        ("abc-123", true), ("0f8fad5b-d9cb-469f-a165-70867728950e", true), ("trace:1/2+3=4@x_y.z", true),
        ("", false), ("has space", false), ("quote\"", false), ("new\nline", false), ("é", false),
        (String(repeating: "a", count: 128), true), (String(repeating: "a", count: 129), false),
    ])
    func onlyASaneIDIsTaken(_ value: String, _ taken: Bool) {
        #expect((RequestID.given(value) != nil) == taken)
    }

    @Test func madeIDsAreUniqueAndSane() {
        let ids = (0..<1000).map { _ in RequestID.make() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { RequestID.given($0) == $0 && $0.hasPrefix("req_") })
    }

    @Test(.timeLimit(.minutes(2)))
    func theIDComesBackAndIsLogged() async throws {
        let entries = Collected<AccessLogEntry>()
        let fixture = try await ServerFixture(accessLog: { entry in entries.append(entry) })
        let given = try await fixture.call("GET", "/v1/orders", headers: ["X-Request-Id": "abc-123"])
        #expect(given.status == 200)
        let refused = try await fixture.call("GET", "/v1/orders", headers: ["X-Request-Id": "two words"])
        let none = try await fixture.call("POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "1.00"]], "currency": "CNY"])
        #expect(none.status == 201)
        let logged = await eventually { entries.all.count >= 3 }
        #expect(logged)
        let ids = entries.all.map(\.requestID)
        #expect(ids.contains("abc-123"))
        #expect(ids.compactMap { $0 }.filter { $0.hasPrefix("req_") }.count >= 2, "\(ids)")
        #expect(!ids.contains("two words"))
        #expect(entries.all.first { $0.requestID == "abc-123" }?.jsonLine.contains(#""request_id":"abc-123""#) == true)
        _ = refused
        await fixture.stop()
    }

    /// A payment's call to WeChat Pay is logged under the id of the request that started it:
    /// provider, method, host, path — no query, no body, no key.
    @Test(.timeLimit(.minutes(2)))
    func providerCallsAreLoggedUnderTheirRequest() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        let lines = Collected<String>()
        let log = ServerLog(format: .json) { line in lines.append(line) }
        let store = try SQLiteOrderStore(path: ":memory:")
        let server = MerchantServer(configuration: mode.configuration, store: store, log: log)
        try await server.start()
        func call(_ method: String, _ path: String, _ body: [String: Any]) async throws -> HTTPServerResponse {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(mode.configuration.secretKey)")
            headers.add("X-Request-Id", "trace-pay-1")
            return await server.handle(
                HTTPServerRequest(
                    method: method, path: path, headers: headers, body: Array(try JSONSerialization.data(withJSONObject: body))))
        }
        let created = try await call("POST", "/v1/orders", ["items": [["label": "Tea", "amount": "2.00"]], "currency": "CNY"])
        #expect(created.headers["X-Request-Id"] == "trace-pay-1")
        let id = (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String ?? ""
        for method in ["wechat.native", "alipay.qr"] {
            let started = try await call("POST", "/v1/orders/\(id)/payments", ["method": method])
            #expect(started.status < 300, "\(String(decoding: started.body, as: UTF8.self))")
        }
        let calls = lines.all.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "provider_call" }
        let wechat = try #require(calls.first { $0["provider"] as? String == "wechat" }, "\(lines.all)")
        #expect(wechat["request_id"] as? String == "trace-pay-1")
        #expect(
            (wechat["path"] as? String)?.hasSuffix("/pay/unifiedorder") == true && wechat["status"] as? Int == 200
                && wechat["method"] as? String == "POST")
        let alipay = try #require(calls.first { $0["provider"] as? String == "alipay" })
        #expect(alipay["request_id"] as? String == "trace-pay-1" && (alipay["path"] as? String)?.contains("?") == false)
        let text = lines.all.joined(separator: "\n")
        #expect(!text.contains(mode.wechatMerchant.apiKey) && !text.contains("sign=") && !text.contains(mode.configuration.secretKey))
        await server.stop()
        await store.close()
        await mode.sandbox.stop()
    }

    @Test func theLogsTwoFormats() throws {
        let lines = Collected<String>()
        let when = Date(timeIntervalSince1970: 1_800_000_000)
        let json = ServerLog(format: .json, now: { when }, write: { line in lines.append(line) })
        json.record("config_reloaded", ["result": "applied", "count": 2])
        let text = ServerLog(format: .text, now: { when }, write: { line in lines.append(line) })
        text.record("config_reload_refused", ["reason": "config: wechat.api_key_env: WECHAT_API_KEY is not set"])
        let entry = AccessLogEntry(
            method: "GET", path: "/healthz", status: 200, responseBytes: 2, requestBytes: 0, duration: .milliseconds(3), requestID: "r1")
        json.access(entry)
        text.access(entry)
        let written = lines.all
        #expect(written[0] == #"{"count":2,"event":"config_reloaded","result":"applied","time":"2027-01-15T08:00:00Z"}"#)
        #expect(written[1] == #"2027-01-15T08:00:00Z config_reload_refused reason="config: wechat.api_key_env: WECHAT_API_KEY is not set""#)
        #expect(
            written[2].contains(#""event":"access""#) && written[2].contains(#""request_id":"r1""#) && written[2].contains(#""status":200"#)
        )
        #expect(written[3] == "2027-01-15T08:00:00Z GET /healthz 200 3.0ms in=0 out=2 id=r1")
    }
}

/// What closures called from other threads hand over, in order.
final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

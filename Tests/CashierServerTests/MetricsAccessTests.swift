import Cashier
import CashierServer
import Foundation
import TestSupport
import Testing

/// `/metrics` (payment volumes) is not for whoever reaches the API: closed by default, behind a
/// bearer token, or on an address of its own; and the HTTP limits come from the configuration.
@Suite struct MetricsAccessTests {
    @Test func closedByDefaultTokenOrItsOwnAddress() async throws {
        let closed = try await ServerFixture { $0.metricsAccess = .closed }
        let refused = try await closed.call("GET", "/metrics", key: "")
        #expect(refused.status == 404 && "\(refused.object)".contains("metrics.listen"))
        await closed.stop()

        let token = "metrics-token-0123456789"
        let guarded = try await ServerFixture { $0.metricsAccess = .token(token) }
        #expect(try await guarded.call("GET", "/metrics", key: "").status == 401)
        #expect(try await guarded.call("GET", "/metrics", key: guarded.keys.secret).status == 401, "the API's key is not the metrics token")
        let read = try await guarded.call("GET", "/metrics", key: token)
        #expect(read.status == 200 && String(decoding: read.body, as: UTF8.self).contains("cashier_http_requests_total"))
        await guarded.stop()

        let apart = try await ServerFixture(listening: true) {  // `metrics.listen` is a socket of its own
            $0.metricsAccess = .closed
            $0.metricsListen = ("127.0.0.1", UInt16.random(in: 20_000...32_000))
        }
        let port = try #require(apart.server.metricsPort)
        let scraped = try await URLSessionTransport().send(
            HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(port)/metrics")!))
        #expect(scraped.status == 200 && String(decoding: scraped.body, as: UTF8.self).contains("cashier_"))
        let nothingElse = try await URLSessionTransport().send(
            HTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(port)/v1/orders")!))
        #expect(nothingElse.status == 404)
        #expect(try await apart.call("GET", "/metrics", key: "").status == 404)
        await apart.stop()
    }

    @Test func theConfigurationFileSetsMetricsAndHTTPLimits() throws {
        let folder = try ConfigurationFileTests.Folder()
        var object = try ConfigurationFileTests().full(folder)
        let environment = ConfigurationFileTests.environment.merging(["METRICS_TOKEN": "m-0123456789abcdef"]) { $1 }
        object["metrics"] = ["token_env": "METRICS_TOKEN", "listen": "127.0.0.1:9464"]
        object["http"] = ["per_ip_connection_limit": 0, "request_deadline_seconds": 10]
        let parsed = try ConfigurationFile(contentsOf: try folder.config(object), environment: environment)
        #expect(parsed.configuration.metricsAccess == .token("m-0123456789abcdef"))
        #expect(parsed.configuration.metricsListen?.host == "127.0.0.1" && parsed.configuration.metricsListen?.port == 9464)
        #expect(parsed.configuration.perIPConnectionLimit == 0 && parsed.configuration.requestDeadlineSeconds == 10)
        object.removeValue(forKey: "metrics")
        object.removeValue(forKey: "http")
        let defaults = try ConfigurationFile(contentsOf: try folder.config(object), environment: environment)
        #expect(defaults.configuration.metricsAccess == .closed)
        #expect(defaults.configuration.perIPConnectionLimit == 256 && defaults.configuration.requestDeadlineSeconds == 30)
        for (key, value, path) in [
            ("metrics", ["token": "written-in-the-file"] as [String: Any], "metrics.token"),
            ("metrics", ["listen": "nowhere"], "metrics.listen"),
            ("http", ["request_deadline_seconds": -1], "http.request_deadline_seconds"),
        ] {
            var bad = object
            bad[key] = value
            #expect(throws: ConfigurationFile.Problem.self, "\(path)") {
                try ConfigurationFile(contentsOf: try folder.config(bad), environment: environment)
            }
        }
    }
}

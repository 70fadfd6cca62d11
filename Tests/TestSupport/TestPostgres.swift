import Foundation

/// The throwaway PostgreSQL cluster `scripts/with-pg` starts around `make test`.
public enum TestPostgres {
    /// The cluster's URL, or `nil` when the tests run without one.
    public static let url: String? = ProcessInfo.processInfo.environment["CASHIER_TEST_PG_URL"]

    /// Why PostgreSQL tests skip: it did not start, or the tests were not run through `scripts/with-pg`.
    public static let skipReason =
        ProcessInfo.processInfo.environment["CASHIER_TEST_PG_SKIP_REASON"]
        ?? "no PostgreSQL: run the tests as `make test` (scripts/with-pg starts a throwaway cluster)"

    /// A new, empty database on the cluster; returns its URL.
    public static func freshDatabase() async throws -> String {
        guard let url else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: skipReason]) }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let created = try await runSubprocess("/usr/bin/psql", [url, "-qc", "CREATE DATABASE \(name)"])
        guard created.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "CREATE DATABASE failed: \(created.stderr)"])
        }
        return database(name, on: url)
    }

    /// `url` naming another database.
    public static func database(_ name: String, on url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + name
        return components.string ?? url
    }
}

public import Foundation

/// Waits (up to ten seconds) for a command's `--ready-file` and returns its JSON object.
public func readyFile(_ url: URL) async throws -> [String: String]? {
    for _ in 0..<500 {
        if let data = FileManager.default.contents(atPath: url.path) {
            return try JSONSerialization.jsonObject(with: data) as? [String: String]
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    return nil
}

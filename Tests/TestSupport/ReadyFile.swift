public import Foundation

/// Waits (up to `timeout`) for a command's `--ready-file` and returns its JSON object.
public func readyFile(_ url: URL, timeout: Duration = .seconds(90)) async throws -> [String: String]? {
    // By the clock, not by a count of sleeps: with the whole suite on two cores, a sleep can take
    // far longer than asked, and a process may need tens of seconds to start.
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if let data = FileManager.default.contents(atPath: url.path) {
            return try JSONSerialization.jsonObject(with: data) as? [String: String]
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    return nil
}

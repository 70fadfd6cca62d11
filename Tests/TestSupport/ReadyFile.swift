public import Foundation

/// Waits (up to `timeout`) for a command's `--ready-file` and returns its JSON object.
public func readyFile(_ url: URL, timeout: Duration = .seconds(90)) async throws -> [String: String]? {
    // Another process writes it, so ``eventually`` asks, by the clock: with the whole suite on two
    // cores a process may need tens of seconds to start.
    guard await eventually(timeout: timeout, { FileManager.default.contents(atPath: url.path) != nil }),
        let data = FileManager.default.contents(atPath: url.path)
    else { return nil }
    return try JSONSerialization.jsonObject(with: data) as? [String: String]
}

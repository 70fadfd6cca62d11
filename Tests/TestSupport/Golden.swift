public import Foundation

/// Golden files: text frozen in the repository that a test's output must match byte for byte
/// (the migrations' SQL, the OpenAPI document, the route table, webhook payloads). A golden
/// changes only on purpose: run the test with `CASHIER_UPDATE_GOLDENS=1` to write it again, and
/// commit the difference with the reason.
public enum Golden {
    /// `nil` when `actual` is the golden file `name` (in the folder `Goldens` beside `file`);
    /// otherwise what differs: the first line that does, and both sides of it.
    public static func mismatch(_ actual: String, _ name: String, file: String = #filePath) -> String? {
        let url = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Goldens").appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["CASHIER_UPDATE_GOLDENS"] == "1" {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            do { try Data(actual.utf8).write(to: url) } catch { return "could not write \(url.path): \(error)" }
            return nil
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return "no golden file \(url.path): run the test once with CASHIER_UPDATE_GOLDENS=1 to write it"
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard expected != actual else { return nil }
        let want = expected.components(separatedBy: "\n")
        let got = actual.components(separatedBy: "\n")
        let line = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.count, got.count)
        func at(_ lines: [String]) -> String { line < lines.count ? lines[line] : "(end of text)" }
        return "\(name) differs from its golden file at line \(line + 1):\n  golden: \(at(want))\n  now:    \(at(got))"
    }
}

import Foundation

/// This process's peak resident memory since the last ``reset()`` (Linux: `VmHWM`, reset by
/// writing 5 to `/proc/self/clear_refs`).
enum PeakMemory {
    static func reset() {
        guard let file = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        try? file.write(contentsOf: Data("5".utf8))
        try? file.close()
    }

    static func megabytes() -> Double { field("VmHWM:") }

    /// Resident memory now (`VmRSS`): what the process held before a measure began.
    static func currentMegabytes() -> Double { field("VmRSS:") }

    private static func field(_ name: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return 0 }
        return (Double(line.filter(\.isNumber)) ?? 0) / 1024
    }
}

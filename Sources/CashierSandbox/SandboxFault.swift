import CashierHTTP
import Foundation

/// A fault the sandbox injects into every gateway call, to test clients against a flaky provider.
public enum SandboxFault: Sendable, Equatable {
    /// Answer normally.
    case none
    /// Answer normally after a delay.
    case latency(Duration)
    /// Answer HTTP 500 with an empty body.
    case serverError
    /// Say nothing for this long, then answer 504 (a client with a shorter timeout gives up first).
    case timeout(Duration)
    /// Answer HTTP 200 with bytes that are not the provider's format.
    case garbage

    /// Reads `{"mode": "none"|"latency"|"server_error"|"timeout"|"garbage", "milliseconds": N}`.
    init?(json: [String: Any]) {
        let milliseconds = (json["milliseconds"] as? NSNumber)?.intValue ?? 0
        switch json["mode"] as? String {
        case "none": self = .none
        case "latency": self = .latency(.milliseconds(milliseconds))
        case "server_error": self = .serverError
        case "timeout": self = .timeout(.milliseconds(milliseconds))
        case "garbage": self = .garbage
        default: return nil
        }
    }

    /// Applies the fault around `answer`.
    func apply(_ answer: () async -> HTTPServerResponse) async -> HTTPServerResponse {
        switch self {
        case .none: return await answer()
        case .latency(let delay):
            try? await Task.sleep(for: delay)
            return await answer()
        case .serverError:
            return HTTPServerResponse(status: 500)
        case .timeout(let delay):
            try? await Task.sleep(for: delay)
            return HTTPServerResponse(status: 504)
        case .garbage:
            return HTTPServerResponse(
                status: 200, headers: ["Content-Type": "text/xml"], body: Array("\u{1}<xml><return_code>SUC".utf8) + [0xFF, 0xFE])
        }
    }
}

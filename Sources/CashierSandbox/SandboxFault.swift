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
    /// Answer as usual, but with the signature changed: WeChat v2's `sign`, v3's
    /// `Wechatpay-Signature`, Alipay's `sign`, UnionPay's `signature` — as an impostor or a broken proxy would.
    case badSignature
    /// Act on the next `count` calls, then answer each 502 Bad Gateway as a proxy that lost the
    /// reply would: the provider did the work, the caller does not know (a retry with the same
    /// idempotency key must find it done, not do it again). Then back to `.none`.
    case lostReplies(Int)

    /// Reads `{"mode": "none"|"latency"|"server_error"|"timeout"|"garbage"|"bad_signature"|"lost_reply", "milliseconds": N, "count": N}`.
    init?(json: [String: Any]) {
        let milliseconds = (json["milliseconds"] as? NSNumber)?.intValue ?? 0
        switch json["mode"] as? String {
        case "none": self = .none
        case "latency": self = .latency(.milliseconds(milliseconds))
        case "server_error": self = .serverError
        case "timeout": self = .timeout(.milliseconds(milliseconds))
        case "garbage": self = .garbage
        case "bad_signature": self = .badSignature
        case "lost_reply": self = .lostReplies(max(1, (json["count"] as? NSNumber)?.intValue ?? 1))
        default: return nil
        }
    }

    /// The fault in force after one call: a counted fault counts down to `.none`, the others stay.
    var afterOneCall: SandboxFault {
        guard case .lostReplies(let count) = self else { return self }
        return count > 1 ? .lostReplies(count - 1) : .none
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
        case .badSignature:
            var response = await answer()
            if response.headers["Wechatpay-Signature"] != nil {
                response.headers.set("Wechatpay-Signature", "Zm9yZ2VkIHNpZ25hdHVyZQ==")
            }
            var text = String(decoding: response.body, as: UTF8.self)
            // UnionPay's raw answers end the signature at the next '&' (or the body's end).
            if text.contains("signMethod=01"), let start = text.range(of: "signature=") {
                let end = text.range(of: "&", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
                text.replaceSubrange(start.upperBound..<end, with: String(text[start.upperBound..<end].map { $0 == "A" ? "B" : "A" }))
            }
            for (open, close) in [("<sign><![CDATA[", "]]></sign>"), ("\"sign\":\"", "\"")] {
                if let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex) {
                    // Another valid-looking signature: the same length, other letters.
                    let forged = String(text[start.upperBound..<end.lowerBound].map { $0 == "A" ? "B" : "A" })
                    text.replaceSubrange(start.upperBound..<end.lowerBound, with: forged)
                }
            }
            response.body = Array(text.utf8)
            return response
        case .lostReplies:
            _ = await answer()
            return HTTPServerResponse(status: 502)
        case .garbage:
            return HTTPServerResponse(
                status: 200, headers: ["Content-Type": "text/xml"], body: Array("\u{1}<xml><return_code>SUC".utf8) + [0xFF, 0xFE])
        }
    }
}

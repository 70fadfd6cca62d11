import CashierHTTP
import Foundation

/// What the sandbox's routes that take JSON share, its control routes (`/sandbox/…`) above all:
/// a JSON object for a body, and a `400 invalid_request` that says which body the route expects.
enum SandboxControl {
    /// The request's body as a JSON object; `nil` when it is not one.
    static func object(_ request: HTTPServerRequest) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
    }

    /// `400 invalid_request` saying what was expected instead.
    static func invalid(_ message: String) -> HTTPServerResponse {
        .error(status: 400, code: "invalid_request", message: message)
    }
}

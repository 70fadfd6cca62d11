import CashierHTTP
import Foundation

/// What the sandbox's routes that take JSON share, its control routes (`/sandbox/…`) above all:
/// a JSON object for a body, and a `400 invalid_request` that says which body the route expects.
enum SandboxControl {
    /// The request's body as a JSON object; `nil` when it is not one.
    /// A payer's answer to a signing request: `true` for `agree` (or `success`, `/sandbox/pay`'s
    /// word), `false` for `refuse` (or `fail`, `cancel`), `nil` for anything else.
    static func agrees(_ outcome: Any?) -> Bool? {
        switch outcome as? String {
        case "agree", "success": true
        case "refuse", "fail", "cancel": false
        default: nil
        }
    }

    static func object(_ request: HTTPServerRequest) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
    }

    /// `400 invalid_request` saying what was expected instead.
    static func invalid(_ message: String) -> HTTPServerResponse {
        .error(status: 400, code: "invalid_request", message: message)
    }
}

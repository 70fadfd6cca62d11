/// What the sandboxes do with the refunds they are asked for from now on: pay them, refuse them
/// (the merchant's balance is empty), or accept them and report them failed afterwards — by
/// notification and query, as WeChat does for a payer whose account cannot take the money
/// (v2 `CHANGE`/`REFUNDCLOSE`, v3 `ABNORMAL`/`CLOSED`) and by query for Alipay (no
/// `refund_status`).
public enum SandboxRefundOutcome: Sendable, Equatable {
    /// Refunds succeed (the default).
    case succeed
    /// The refund call is refused: WeChat `NOTENOUGH`, Alipay `ACQ.SELLER_BALANCE_NOT_ENOUGH`.
    case refuse
    /// Accepted, then reported failed with `status` (WeChat's word: `CHANGE`, `REFUNDCLOSE`,
    /// `ABNORMAL`, `CLOSED`; v2 and v3 each take the nearest of their own).
    case failLater(status: String)

    /// Reads `{"outcome": "succeed"|"refuse"|"fail_later", "status": "REFUNDCLOSE"}`.
    init?(json: [String: Any]) {
        switch json["outcome"] as? String {
        case "succeed": self = .succeed
        case "refuse": self = .refuse
        case "fail_later": self = .failLater(status: json["status"] as? String ?? "CLOSED")
        default: return nil
        }
    }

    /// The failure status in WeChat API v2's words.
    var v2Status: String? {
        guard case .failLater(let status) = self else { return nil }
        return ["CHANGE", "REFUNDCLOSE"].contains(status) ? status : (status == "ABNORMAL" ? "CHANGE" : "REFUNDCLOSE")
    }

    /// The failure status in WeChat API v3's words.
    var v3Status: String? {
        guard case .failLater(let status) = self else { return nil }
        return ["ABNORMAL", "CLOSED"].contains(status) ? status : (status == "CHANGE" ? "ABNORMAL" : "CLOSED")
    }
}

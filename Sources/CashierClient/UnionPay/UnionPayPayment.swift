public import Foundation

/// A UnionPay payment for the app: the `tn` the server got from UnionPay's consume, and the
/// environment the plugin must use. The server sends it for `unionpay.applepay` (Apple Pay
/// through `UPAPayPlugin`) and `unionpay.app` (云闪付 through `UPPaymentControl`) as
/// `{"unionpay": {"tn": "…", "mode": "00"}}`.
public struct UnionPayPayment: Sendable, Equatable {
    /// The plugins' `mode`: UnionPay's production or test environment.
    public enum Mode: String, Sendable {
        case production = "00"
        case test = "01"
    }

    /// UnionPay's order number (银联受理订单号), trimmed.
    public let tn: String
    public let mode: Mode

    public init(tn: String, mode: Mode) {
        self.tn = tn
        self.mode = mode
    }

    /// Reads the server's answer: its `unionpay` object (or the object itself).
    /// - Throws: ``CashierClientError`` `invalid_response` when it has no `tn` or an unknown `mode`.
    public init(json: Data) throws {
        struct Parameters: Decodable {
            let tn: String?
            let mode: String?
        }
        struct Answer: Decodable {
            let unionpay: Parameters?
            let tn: String?
            let mode: String?
        }
        let answer = try? JSONDecoder().decode(Answer.self, from: json)
        let tn = (answer?.unionpay?.tn ?? answer?.tn)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !tn.isEmpty, tn.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw CashierClientError(code: "invalid_response", message: "the server's UnionPay parameters have no numeric tn")
        }
        guard let mode = Mode(rawValue: (answer?.unionpay == nil ? answer?.mode : answer?.unionpay?.mode) ?? "00") else {
            throw CashierClientError(code: "invalid_response", message: "the server's UnionPay mode is neither 00 nor 01")
        }
        self.init(tn: tn, mode: mode)
    }
}

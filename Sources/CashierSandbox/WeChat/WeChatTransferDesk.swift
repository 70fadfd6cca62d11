import Foundation

/// What the v3 sandbox keeps of merchant transfers (商家转账): each transfer bill, each merchant's
/// balance (debited when a bill is accepted, given back when it fails or is cancelled), the
/// per-transfer limits and the clock the 24-hour confirmation window is measured by. Held by
/// ``WeChatV3Sandbox``; the rules live in ``WeChatV3Sandbox`` `+Transfers`.
struct WeChatTransferDesk: Sendable {
    /// One transfer bill.
    struct Bill: Sendable {
        let mchID: String
        let appID: String
        let outBillNo: String
        let transferBillNo: String
        let sceneID: String
        let openID: String
        let amount: Int64
        let remark: String
        /// The payee's name, decrypted (the sandbox holds the platform key).
        let userName: String?
        let notifyURL: String?
        let created: Date
        var updated: Date
        var state = "WAIT_USER_CONFIRM"
        var failReason: String?
        /// The newest `package_info` handed out (a create sent again gets a fresh one).
        var packageInfo: String
        /// Every `package_info` handed out for the bill: the payer may open any of them.
        var packages: Set<String>

        /// What makes a repeat the same request: everything but the ciphertext of the name.
        var fingerprint: [String] { [appID, sceneID, openID, String(amount), remark, userName ?? "", notifyURL ?? ""] }
    }

    /// How long the payee has to confirm.
    static let confirmWindow: TimeInterval = 24 * 3600
    /// What each merchant starts with, in fen (1,000,000 yuan).
    static let openingBalance: Int64 = 100_000_000

    /// Bills by `mchid` + `/` + `out_bill_no`.
    var bills: [String: Bill] = [:]
    /// Balances by `mchid`; absent means ``openingBalance``.
    var balances: [String: Int64] = [:]
    /// The least and most one transfer may be, in fen (WeChat configures them per scene).
    var limits: ClosedRange<Int64> = 10...10_000_000
    /// The sandbox clock for bills: creation, the confirmation window, update times.
    var clock: @Sendable () -> Date = { Date() }

    static func key(_ mchID: String, _ outBillNo: String) -> String { mchID + "/" + outBillNo }

    func balance(_ mchID: String) -> Int64 { balances[mchID] ?? Self.openingBalance }
}

/// A transfer bill as the sandbox holds it: what tests and the sandbox's ledger read.
public struct SandboxTransferBill: Sendable, Codable, Equatable {
    public let mchid: String
    public let appid: String
    public let out_bill_no: String
    public let transfer_bill_no: String
    public let openid: String
    public let transfer_amount: Int64
    public let state: String
    public let fail_reason: String?
    public let user_name: String?
}

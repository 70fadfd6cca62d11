public import Foundation

/// What a payer does with the payment code the till scans, in the sandboxes: chosen by the
/// code's last four digits, so a test (or a person at a till) can pick every path the real
/// gateways take. Any other valid code pays at once.
///
/// | ends in | WeChat Pay `pay/micropay` | Alipay `alipay.trade.pay` |
/// |---|---|---|
/// | `1111` | `USERPAYING`, paid once the payer enters the password (after the sandbox's password delay) | `10003`, then paid the same way |
/// | `2222` | `USERPAYING` for ever: the payer walked away | `10003` for ever |
/// | `3333` | `NOTENOUGH` (balance too low) | `ACQ.BUYER_BALANCE_NOT_ENOUGH` |
/// | `4444` | `AUTHCODEEXPIRE` | `ACQ.PAYMENT_AUTH_CODE_INVALID` |
/// | `5555` | `SYSTEMERROR`, though the payment went through (query finds it paid) | `20000`, paid likewise |
public enum SandboxCounterCode: String, Sendable, CaseIterable {
    case paysAtOnce
    case password
    case walksAway
    case balanceTooLow
    case expired
    case systemErrorButPaid

    public init(code: String) {
        switch code.suffix(4) {
        case "1111": self = .password
        case "2222": self = .walksAway
        case "3333": self = .balanceTooLow
        case "4444": self = .expired
        case "5555": self = .systemErrorButPaid
        default: self = .paysAtOnce
        }
    }

    /// How long a payer takes to enter the password, unless a sandbox is told otherwise.
    public static let defaultPasswordDelay: TimeInterval = 5
}

public import Foundation

/// One thing `cashier doctor` looked at: what it found and, when something is wrong, what to do.
public struct DoctorFinding: Sendable, Equatable, Encodable {
    /// How much it matters.
    public enum Status: String, Sendable, Comparable, Encodable {
        /// Checked, and right.
        case ok
        /// Not checked, or worth knowing (a check that needs `--online`, a migration the next start applies).
        case note
        /// Works today, but will not for long or is unwise (a certificate that ends within 30 days).
        case warning
        /// A payment would fail, or a secret is exposed: fix it before going live.
        case problem

        private var rank: Int {
            switch self {
            case .ok: 0
            case .note: 1
            case .warning: 2
            case .problem: 3
            }
        }

        public static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
    }

    /// What was checked, as a dotted name (`wechat_v3.private_key`, `files.permissions`, `clock`).
    public let check: String
    public let status: Status
    /// What was found, in a sentence (never a secret).
    public let message: String
    /// What to do about it; `nil` when nothing needs doing.
    public let fix: String?
    /// For a certificate: whole days until it ends (negative once it has).
    public let daysLeft: Int?

    /// - Parameters:
    ///   - check: what was checked (`applepay.processing_certificate`).
    ///   - status: how much it matters.
    ///   - message: what was found.
    ///   - fix: what to do about it.
    ///   - daysLeft: a certificate's whole days left.
    public init(_ check: String, _ status: Status, _ message: String, fix: String? = nil, daysLeft: Int? = nil) {
        self.check = check
        self.status = status
        self.message = message
        self.fix = fix
        self.daysLeft = daysLeft
    }

    /// `true` for a warning or a problem: something the merchant should act on.
    public var needsAction: Bool { status >= .warning }

    /// As JSON: `check`, `status`, `message`, and `fix` and `days_left` when known.
    enum CodingKeys: String, CodingKey {
        case check, status, message, fix
        case daysLeft = "days_left"
    }

    /// What `cashier doctor --json` prints: whether nothing needs action, and every finding.
    public struct Report: Encodable, Sendable {
        public let clean: Bool
        public let findings: [DoctorFinding]

        public init(clean: Bool, findings: [DoctorFinding]) {
            self.clean = clean
            self.findings = findings
        }
    }

    /// One or two lines of text: `PROBLEM  check  message`, then `fix: …` under it.
    public var textLines: String {
        let label: String
        switch status {
        case .ok: label = "ok     "
        case .note: label = "note   "
        case .warning: label = "WARNING"
        case .problem: label = "PROBLEM"
        }
        var text = "\(label)  \(check): \(message)\n"
        if let fix { text += "         fix: \(fix)\n" }
        return text
    }
}

/// A certificate the server holds and whose end it reports (`cashier_certificate_expiry_days`).
public struct MonitoredCertificate: Sendable, Equatable {
    /// Which one, as the configuration names it (`wechat.api_certificate`, `applepay.processing_certificate`).
    public let name: String
    /// When it ends.
    public let notValidAfter: Date

    /// - Parameters:
    ///   - name: the configuration's name for it.
    ///   - notValidAfter: when it ends.
    public init(name: String, notValidAfter: Date) {
        self.name = name
        self.notValidAfter = notValidAfter
    }

    /// Days left at `now` (fractional; negative once it has ended).
    public func daysLeft(at now: Date) -> Double {
        notValidAfter.timeIntervalSince(now) / 86_400
    }
}

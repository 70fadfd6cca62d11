import Cashier
import CashierStore
import Foundation

/// Payers' complaints (WeChat Pay's 消费者投诉 2.0): each kept as a record of what the provider
/// says, read from it when its notification comes and by a reconciling poll (the job), linked to
/// the payment it concerns by trade number, with its deadlines (an answer within 24 hours, handled
/// within 72) and `complaint.*` webhooks. The merchant's actions (``respond(_:_:caller:)`` and the
/// rest) go to the provider, and the record is read again from it afterwards: the provider's
/// word is the complaint's state. Nothing here moves money but an approved refund, which is an
/// ordinary refund (``RefundService``).
struct ComplaintService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// How far back the job looks: WeChat lists at most 30 days at once.
    static let reconcileWindow: TimeInterval = 29 * 86_400
    /// The notify path complaint notifications come to (the direct merchant's).
    static let notifyPath = "/notify/wechat/v3/complaints"

    // MARK: The provider's word

    /// A verified complaint notification: the complaint read from the provider and recorded.
    func apply(_ report: ComplaintReport) async -> NotificationOutcome {
        guard let adapter = ledger.adapters.complaintHandling(provider: report.provider.rawValue, merchantID: report.merchantID) else {
            return .refused
        }
        do {
            try await sync(report.complaintID, via: adapter)
            return .acknowledged
        } catch let error as PaymentError where error.code == .merchantMismatch || error.providerCode == "RESOURCE_NOT_EXISTS" {
            // Another merchant's complaint, or one the provider does not know for this merchant: never recorded here.
            return .refused
        } catch {
            return .retry  // the provider did not answer, or the store failed: it sends the notification again
        }
    }

    /// Reads complaint `id` (and its conversation) from the provider and records what changed.
    /// - Throws: `PaymentError.merchantMismatch` for a complaint about another merchant than `adapter`'s.
    @discardableResult
    func sync(_ id: String, via adapter: any ComplaintHandling) async throws -> ComplaintRecorded {
        let snapshot = try await adapter.complaintSnapshot(id)
        guard snapshot.providerMerchantID == adapter.complaintMerchantID else {
            throw PaymentError(
                .merchantMismatch, provider: adapter.provider,
                "complaint \(id) is about merchant \(snapshot.providerMerchantID), not \(adapter.complaintMerchantID)")
        }
        let recorded = try await store.recordComplaint(snapshot, wallet: adapter.provider.wallet, now: clock.now())
        switch recorded {
        case .created: ledger.metrics.increment("cashier_complaints_total", ["event": "created"])
        case .updated: ledger.metrics.increment("cashier_complaints_total", ["event": "updated"])
        case .unchanged: break
        }
        return recorded
    }

    /// The job: every complaint the providers list for the last 29 days whose state differs from
    /// the record's (or that has none) is read again; then each open complaint past a deadline is
    /// announced once (`complaint.overdue`). A provider that does not answer is asked next run.
    /// - Returns: how many records changed or were announced.
    @discardableResult
    func reconcile() async throws -> Int {
        var changed = 0
        let now = clock.now()
        for adapter in ledger.adapters.complaintHandling where adapter.pollsComplaints {
            guard !Task.isCancelled else { break }
            guard let listed = try? await adapter.recentComplaints(from: now.addingTimeInterval(-Self.reconcileWindow), to: now) else {
                continue
            }
            for (id, fingerprint) in listed {
                guard !Task.isCancelled else { break }
                let stored = try await store.complaint(provider: adapter.provider.rawValue, providerComplaintID: id)
                if let stored, adapter.fingerprint(stored.snapshot) == fingerprint { continue }
                guard let recorded = try? await sync(id, via: adapter) else { continue }
                if case .unchanged = recorded { continue }
                changed += 1
            }
        }
        for complaint in try await store.overdueComplaints(now: clock.now(), limit: 200) {
            guard !Task.isCancelled else { break }
            if try await store.announceOverdueComplaint(complaint.id, now: clock.now()) { changed += 1 }
        }
        return changed
    }

    /// When the configuration asks for it, makes each provider that lets the merchant choose send
    /// complaint notifications to this server (the direct merchant's, at ``notifyPath``).
    /// - Returns: whether a URL was set or changed.
    @discardableResult
    func registerNotifyURL() async throws -> Bool {
        guard ledger.configuration.wechatV3?.registersComplaintNotifyURL == true,
            let adapter = ledger.adapters.complaintHandling.first(where: { ($0 as? WeChatV3Adapter)?.subMerchant == nil })
        else { return false }
        return try await adapter.registerComplaintNotifyURL(ledger.publicBase + Self.notifyPath)
    }

    // MARK: Reading

    /// Complaints these credentials may see, open ones first and the nearest deadline first.
    /// - Parameters:
    ///   - caller: who asks (a merchant's key sees that merchant's only).
    ///   - state: `pending`, `processing`, `processed`, or `open` (the first two); all when `nil`.
    ///   - limit: 1 to 100.
    ///   - offset: where the page starts.
    func list(caller: Identity, state: String?, limit: Int, offset: Int) async throws -> RecordPage<ComplaintJSON> {
        let states: Set<StoredComplaint.State>
        switch state {
        case nil: states = []
        case "open": states = [.pending, .processing]
        case let name?:
            guard let one = StoredComplaint.State(rawValue: name) else {
                throw RequestProblem("state must be pending, processing, processed or open, not \(name.prefix(40))")
            }
            states = [one]
        }
        let found = try await store.complaints(merchant: caller.merchant, states: states, limit: limit + 1, offset: offset)
        let now = clock.now()
        return RecordPage(fetched: found, limit: limit) { $0.json(now: now, full: false) }
    }

    /// Complaint `id` with its conversation and the payer's phone.
    func view(_ id: String, caller: Identity) async throws -> ComplaintJSON {
        try await find(id, caller: caller).json(now: clock.now(), full: true)
    }

    /// Complaint `id` when these credentials may see it (a merchant's key: its own), else 404.
    func find(_ id: String, caller: Identity) async throws -> StoredComplaint {
        guard let complaint = try await store.complaint(id: id), caller.merchant == nil || complaint.merchant == caller.merchant else {
            throw APIError(status: 404, code: "not_found", message: "no complaint \(id) for these credentials")
        }
        return complaint
    }

    /// The adapter that answers `complaint` at its provider.
    /// - Throws: 409 `unsupported` when its provider or merchant is no longer configured here.
    func adapter(for complaint: StoredComplaint) throws -> any ComplaintHandling {
        guard
            let adapter = ledger.adapters.complaintHandling(
                provider: complaint.snapshot.provider, merchantID: complaint.snapshot.providerMerchantID)
        else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "\(complaint.snapshot.provider) merchant \(complaint.snapshot.providerMerchantID) is not configured on this server"
            )
        }
        return adapter
    }

    /// Image `index` of complaint `id` (``StoredComplaint/imageURLs``), fetched from the provider.
    func image(_ id: String, index: String, caller: Identity) async throws -> (bytes: [UInt8], contentType: String) {
        let complaint = try await find(id, caller: caller)
        let urls = complaint.imageURLs
        guard let number = Int(index), urls.indices.contains(number) else {
            throw APIError(status: 404, code: "not_found", message: "complaint \(id) has \(urls.count) images, numbered from 0")
        }
        let (bytes, _) = try await adapter(for: complaint).complaintImage(at: urls[number])
        // Served as what its bytes are, never as what the provider's header claims (no HTML from elsewhere).
        return (bytes, Self.imageType(bytes) ?? "application/octet-stream")
    }

    /// The media type of an image's bytes (JPEG, PNG, BMP), `nil` for anything else.
    static func imageType(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0x42, 0x4D]) { return "image/bmp" }
        return nil
    }
}

import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// What the merchant does with a complaint, the same whether the API or the dashboard asks: each
/// checked here first (what the provider would refuse is refused with what to fix), sent to the
/// provider, and the complaint read again from it.
extension ComplaintService {
    /// The most characters an answer carries (WeChat Pay's limit for a merchant).
    static let replyLimit = 200
    /// The most images an answer or a refused refund carries.
    static let imageLimit = 4

    /// Uploads an image for an answer to complaint `id`. - Returns: the provider's media id.
    /// - Throws: 422 for a file the provider does not take (JPG, BMP or PNG up to 2 MB, named so).
    func uploadImage(_ id: String, filename: String, bytes: [UInt8], caller: Identity) async throws -> ComplaintImageJSON {
        let complaint = try await find(id, caller: caller)
        let mediaID = try await adapter(for: complaint).uploadComplaintImage(filename: filename, bytes: bytes)
        return ComplaintImageJSON(media_id: mediaID, filename: filename, size: bytes.count)
    }

    /// ``uploadImage(_:filename:bytes:caller:)`` from the API's base64 body.
    func uploadImage(_ id: String, _ body: ComplaintImageBody, caller: Identity) async throws -> ComplaintImageJSON {
        guard let bytes = try? Base64.decodeBytes(body.data), !bytes.isEmpty else {
            throw RequestProblem("data must be the image's bytes, base64 (JPG, BMP or PNG of at most 2 MB)")
        }
        return try await uploadImage(id, filename: body.filename, bytes: bytes, caller: caller)
    }

    /// Answers complaint `id` (the first answer moves it from pending to processing).
    /// - Throws: 422 for an answer the provider would refuse, 409 for one already handled and not
    ///   reopened, 502 when the provider refuses it anyway.
    func respond(_ id: String, _ body: ComplaintReplyBody, caller: Identity) async throws -> ComplaintJSON {
        let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw RequestProblem.unprocessable("text is empty: say how the complaint is handled") }
        guard body.text.count <= Self.replyLimit else {
            throw RequestProblem.unprocessable("text is \(body.text.count) characters; WeChat Pay takes at most \(Self.replyLimit)")
        }
        let images = body.images ?? []
        try Self.check(images: images)
        let link: (url: String, text: String)?
        switch (body.link_url, body.link_text) {
        case (nil, nil): link = nil
        case (let url?, let text?):
            guard url.lowercased().hasPrefix("https://"), URL(string: url)?.host?.isEmpty == false, !text.isEmpty else {
                throw RequestProblem.unprocessable("link_url must be an https URL, with link_text (what the payer taps)")
            }
            link = (url, text)
        default: throw RequestProblem.unprocessable("give link_url and link_text together, or neither")
        }
        let complaint = try await find(id, caller: caller)
        let adapter = try adapter(for: complaint)
        try await adapter.respond(toComplaint: complaint.snapshot.providerComplaintID, text: body.text, images: images, link: link)
        return try await reread(complaint, via: adapter)
    }

    /// Tells the provider complaint `id` is handled.
    func complete(_ id: String, caller: Identity) async throws -> ComplaintJSON {
        let complaint = try await find(id, caller: caller)
        let adapter = try adapter(for: complaint)
        try await adapter.completeComplaint(complaint.snapshot.providerComplaintID)
        return try await reread(complaint, via: adapter)
    }

    /// The decision on the refund a `REFUND` complaint asks for. Approving refunds first, through
    /// the ordinary refund of the payment (reserved, never more than it took, whatever else is
    /// refunded at the same moment; its number comes from the complaint, so a retry refunds
    /// nothing more), and only then tells the provider: a refund refused here is never promised
    /// there. Rejecting tells the provider why.
    /// - Parameter actor: who asks, for the refund's record.
    func decideRefund(_ id: String, _ body: ComplaintRefundBody, caller: Identity, actor: String) async throws -> ComplaintJSON {
        let complaint = try await find(id, caller: caller)
        guard complaint.snapshot.problemType == "REFUND" else {
            throw RequestProblem.unprocessable(
                "complaint \(id) asks for no refund (problem_type \(complaint.snapshot.problemType ?? "none")): refund the order "
                    + "with POST /v1/orders/{id}/refunds if you mean to")
        }
        let adapter = try adapter(for: complaint)
        switch body.decision {
        case "approve":
            guard body.reason == nil, body.images == nil else { throw RequestProblem.unprocessable("reason and images go with reject") }
            guard let orderID = complaint.orderID, let paymentID = complaint.paymentID else {
                throw APIError.invalidState(
                    "complaint \(id) concerns trade \(complaint.snapshot.outTradeNo ?? "unknown"), which Cashier did not take: "
                        + "refund it where it was taken")
            }
            var amountMinor = body.amount_minor
            if body.amount == nil, amountMinor == nil, let asked = complaint.snapshot.requestedRefund {
                amountMinor = WholeNumber(asked.minorUnits)
            }
            let refund = try await ledger.refunds.refund(
                orderID: orderID,
                RefundBody(amount: body.amount, amount_minor: amountMinor, reason: "complaint \(id)", payment: paymentID),
                idempotencyKey: "complaint:" + id, actor: actor)
            try await adapter.decideComplaintRefund(complaint.snapshot.providerComplaintID, approve: true, reason: nil, images: [])
            _ = try await store.decideComplaintRefund(id, decision: "approved", refundID: refund.refund.id, now: clock.now())
        case "reject":
            guard body.amount == nil, body.amount_minor == nil else { throw RequestProblem.unprocessable("an amount goes with approve") }
            let reason = body.reason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !reason.isEmpty, reason.count <= Self.replyLimit else {
                throw RequestProblem.unprocessable("reject needs a reason of at most \(Self.replyLimit) characters (the payer reads it)")
            }
            let images = body.images ?? []
            try Self.check(images: images)
            try await adapter.decideComplaintRefund(complaint.snapshot.providerComplaintID, approve: false, reason: reason, images: images)
            _ = try await store.decideComplaintRefund(id, decision: "rejected", refundID: nil, now: clock.now())
        default:
            throw RequestProblem("decision must be approve or reject")
        }
        return try await reread(complaint, via: adapter)
    }

    /// At most ``imageLimit`` media ids, none empty.
    static func check(images: [String]) throws {
        guard images.count <= imageLimit else {
            throw RequestProblem.unprocessable("\(images.count) images: WeChat Pay takes at most \(imageLimit)")
        }
        guard !images.contains(where: { $0.isEmpty || $0.utf8.count > 512 }) else {
            throw RequestProblem.unprocessable("an image is not a media id from POST /v1/complaints/{id}/images")
        }
    }

    /// The complaint read again from the provider after an action; as recorded when the provider
    /// does not answer that read (the action itself went through, and the job reads it later).
    private func reread(_ complaint: StoredComplaint, via adapter: any ComplaintHandling) async throws -> ComplaintJSON {
        if let synced = try? await sync(complaint.snapshot.providerComplaintID, via: adapter) {
            return synced.complaint.json(now: clock.now(), full: true)
        }
        return (try await store.complaint(id: complaint.id) ?? complaint).json(now: clock.now(), full: true)
    }
}

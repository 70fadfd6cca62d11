import Cashier
import CashierCrypto
public import Foundation

/// Consumer complaints 2.0 (消费者投诉 2.0): list, read, answer, complete, decide refunds, fetch
/// images, and say where complaint notifications go. A client in partner mode acts for its
/// sub-merchant (`complainted_mchid` is the sub-merchant's).
extension WeChatPay.V3.Client {
    /// The merchant complained about: the sub-merchant in partner mode, else this merchant.
    public var complaintedMchID: String { partner?.subMchID ?? merchant.mchID }

    /// The longest span ``complaints(from:to:limit:offset:)`` may ask about, in days.
    public static let complaintListSpan = 30

    /// Complaints made from `beginDate` to `endDate` (Beijing days, both included), a page at a time.
    /// - Parameters:
    ///   - beginDate: `yyyy-MM-dd`.
    ///   - endDate: `yyyy-MM-dd`, at most ``complaintListSpan`` days after `beginDate`.
    ///   - limit: 1 to 50 a page (WeChat's default is 10).
    ///   - offset: where the page starts, from 0.
    /// - Throws: `PaymentError.invalidRequest` for dates or a page WeChat would refuse, before
    ///   anything is sent; `.providerRejected` with WeChat's code otherwise.
    public func complaints(from beginDate: String, to endDate: String, limit: Int = 10, offset: Int = 0) async throws
        -> WeChatPay.V3.ComplaintPage
    {
        guard (1...50).contains(limit) else { throw Self.refused("limit \(limit) is outside 1…50") }
        guard offset >= 0 else { throw Self.refused("offset \(offset) is negative") }
        let day = BeijingTime.formatter("yyyy-MM-dd")
        guard let begin = Self.day(beginDate, day), let end = Self.day(endDate, day) else {
            throw Self.refused("begin_date and end_date must be yyyy-MM-dd days (\(beginDate.prefix(20)), \(endDate.prefix(20)))")
        }
        let span = Int((end.timeIntervalSince(begin) / 86_400).rounded())
        guard span >= 0 else { throw Self.refused("end_date \(endDate) is before begin_date \(beginDate)") }
        guard span <= Self.complaintListSpan else {
            throw Self.refused("\(beginDate) to \(endDate) spans \(span) days; WeChat lists at most \(Self.complaintListSpan) at once")
        }
        let path =
            "/v3/merchant-service/complaints-v2?limit=\(limit)&offset=\(offset)&begin_date=\(beginDate)&end_date=\(endDate)"
            + "&complainted_mchid=\(complaintedMchID)"
        return try Self.decoded(WeChatPay.V3.ComplaintPage.self, try await send("GET", path), "a complaint list")
    }

    /// One complaint, with `payer_openid`.
    /// - Parameter id: `complaint_id`.
    /// - Throws: `PaymentError.malformedMessage` for an answer about another complaint.
    public func complaint(id: String) async throws -> WeChatPay.V3.Complaint {
        let complaint = try WeChatPay.V3.Complaint.decode(
            try await send("GET", "/v3/merchant-service/complaints-v2/\(try Self.segment(id))"))
        guard complaint.id == id else {
            throw PaymentError(.malformedMessage, provider: .wechatV3, "the answer is about complaint \(complaint.id), not \(id)")
        }
        return complaint
    }

    /// A complaint's conversation, oldest first, a page at a time.
    /// - Parameters:
    ///   - complaintID: `complaint_id`.
    ///   - limit: 1 to 300 (WeChat's default is 100).
    ///   - offset: where the page starts, from 0.
    public func negotiationHistory(complaintID: String, limit: Int = 100, offset: Int = 0) async throws
        -> WeChatPay.V3.ComplaintNegotiationPage
    {
        guard (1...300).contains(limit) else { throw Self.refused("limit \(limit) is outside 1…300") }
        guard offset >= 0 else { throw Self.refused("offset \(offset) is negative") }
        let path =
            "/v3/merchant-service/complaints-v2/\(try Self.segment(complaintID))/negotiation-historys?limit=\(limit)&offset=\(offset)"
        return try Self.decoded(WeChatPay.V3.ComplaintNegotiationPage.self, try await send("GET", path), "a negotiation history")
    }

    /// Answers a complaint (204). The first answer moves it from `PENDING` to `PROCESSING`.
    /// - Parameters:
    ///   - id: `complaint_id`.
    ///   - response: the words, images, link.
    /// - Throws: `PaymentError.invalidRequest` for an answer WeChat would refuse (checked before sending).
    public func respond(toComplaint id: String, _ response: WeChatPay.V3.ComplaintResponse) async throws {
        let body = try response.body(mchID: complaintedMchID, partner: partner != nil)
        _ = try await send("POST", "/v3/merchant-service/complaints-v2/\(try Self.segment(id))/response", json: body)
    }

    /// Tells WeChat the complaint is handled (204): the payer is asked to rate it. Only once it
    /// truly is: a payer who complains again counts as a repeat complaint.
    /// - Parameter id: `complaint_id`.
    public func completeComplaint(id: String) async throws {
        _ = try await send(
            "POST", "/v3/merchant-service/complaints-v2/\(try Self.segment(id))/complete", json: ["complainted_mchid": complaintedMchID])
    }

    /// Approves or refuses the refund a `REFUND` complaint asks for (204). Approving does not move
    /// money: make the refund through the refund API as usual.
    /// - Parameters:
    ///   - complaintID: `complaint_id`.
    ///   - decision: approve (within some working days) or refuse (with a reason).
    public func updateRefundProgress(complaintID: String, _ decision: WeChatPay.V3.RefundDecision) async throws {
        _ = try await send(
            "POST", "/v3/merchant-service/complaints-v2/\(try Self.segment(complaintID))/update-refund-progress", json: try decision.body())
    }

    /// Downloads a complaint's image (a `media_url` of a complaint or of its conversation): the
    /// file itself, which WeChat does not sign (gopay#484 read it as JSON; it is binary).
    /// - Parameter mediaURL: the URL as WeChat gave it; only URLs on this client's gateway are fetched.
    /// - Returns: the bytes and their `Content-Type`.
    /// - Throws: `PaymentError.invalidRequest` for a URL elsewhere.
    public func complaintImage(at mediaURL: String) async throws -> (bytes: Data, contentType: String?) {
        let prefix = baseURL + "/v3/merchant-service/images/"
        guard mediaURL.hasPrefix(prefix), mediaURL.count > prefix.count, !mediaURL.contains("..") else {
            throw Self.refused("the image URL is not a complaint image on the gateway (\(prefix)…)")
        }
        let path = String(mediaURL.dropFirst(baseURL.count))
        let response = try await exchange("GET", path, body: Data(), signing: "", verifying: false)
        return (response.body, response.headers["Content-Type"])
    }

    // MARK: Notification URL

    /// Where complaint notifications go now, `nil` when none is set.
    public func complaintNotifyURL() async throws -> WeChatPay.V3.ComplaintNotifyURL? {
        do {
            return try Self.decoded(
                WeChatPay.V3.ComplaintNotifyURL.self, try await send("GET", "/v3/merchant-service/complaint-notifications"),
                "a notification URL")
        } catch let error as PaymentError where error.providerCode == "RESOURCE_NOT_EXISTS" || error.providerCode == "NOT_FOUND" {
            return nil
        }
    }

    /// Sets where complaint notifications go (a service provider's gets every sub-merchant's).
    /// - Parameter url: https (WeChat requires it), with no query.
    public func createComplaintNotifyURL(_ url: String) async throws -> WeChatPay.V3.ComplaintNotifyURL {
        try Self.decoded(
            WeChatPay.V3.ComplaintNotifyURL.self,
            try await send("POST", "/v3/merchant-service/complaint-notifications", json: ["url": try Self.notifyURL(url)]),
            "a notification URL")
    }

    /// Changes where complaint notifications go.
    /// - Parameter url: https, with no query.
    public func updateComplaintNotifyURL(_ url: String) async throws -> WeChatPay.V3.ComplaintNotifyURL {
        try Self.decoded(
            WeChatPay.V3.ComplaintNotifyURL.self,
            try await send("PUT", "/v3/merchant-service/complaint-notifications", json: ["url": try Self.notifyURL(url)]),
            "a notification URL")
    }

    /// Stops complaint notifications (204).
    public func deleteComplaintNotifyURL() async throws {
        _ = try await send("DELETE", "/v3/merchant-service/complaint-notifications")
    }

    // MARK: Helpers

    static func refused(_ message: String) -> PaymentError {
        PaymentError(.invalidRequest, provider: .wechatV3, message)
    }

    /// A path segment (a complaint id): letters, digits, `_` and `-` only, so it cannot reach another path.
    static func segment(_ value: String) throws -> String {
        guard !value.isEmpty, value.utf8.count <= 64,
            value.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { throw refused("\(value.prefix(64)) is not a complaint id (letters and digits, at most 64)") }
        return value
    }

    /// A notify URL WeChat takes: an absolute http(s) URL with a host and no query or fragment
    /// (WeChat itself takes https only; the sandbox also plain http on loopback).
    static func notifyURL(_ url: String) throws -> String {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http",
            parsed.host?.isEmpty == false, parsed.query == nil, parsed.fragment == nil, url.utf8.count <= 256
        else { throw refused("the notify URL must be an https URL of at most 256 bytes with no query (\(url.prefix(80)))") }
        return url
    }

    static func day(_ text: String, _ formatter: DateFormatter) -> Date? {
        guard text.utf8.count == 10, let date = formatter.date(from: text), formatter.string(from: date) == text else { return nil }
        return date
    }

    static func decoded<T: Decodable>(_ type: T.Type, _ data: Data, _ what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw PaymentError(.malformedMessage, provider: .wechatV3, "the answer is not \(what)")
        }
    }
}

extension UInt8 {
    /// An ASCII letter or digit.
    var isASCIIAlphanumeric: Bool {
        (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self)
    }
}

import Cashier
import CashierStore
import Foundation

/// A provider where payers complain about payments and the merchant must answer in time
/// (WeChat Pay's 消费者投诉 2.0): read a complaint and its conversation, list recent ones, answer
/// (with images uploaded first), finish, decide on a refund asked for, fetch an image, and say
/// where the provider's complaint notifications go. Money never moves here: an approved refund
/// is an ordinary refund (``RefundService``).
protocol ComplaintHandling: PaymentAdapter {
    /// The merchant complained about at the provider (`complainted_mchid`): complaints naming it are this adapter's.
    var complaintMerchantID: String { get }
    /// Whether the complaint job reads this merchant's recent complaints (its notifications are read either way).
    var pollsComplaints: Bool { get }
    /// What the provider says of complaint `id` now: its detail and its whole conversation.
    func complaintSnapshot(_ id: String) async throws -> ComplaintSnapshot
    /// The provider's complaints made from `from` to `to` (its whole window at most), as their ids
    /// and a fingerprint of their state: a complaint whose fingerprint changed is read again.
    func recentComplaints(from: Date, to: Date) async throws -> [(id: String, fingerprint: String)]
    /// Answers a complaint: words, images (the provider's media ids), a link with its text.
    func respond(toComplaint id: String, text: String, images: [String], link: (url: String, text: String)?) async throws
    /// Tells the provider the complaint is handled.
    func completeComplaint(_ id: String) async throws
    /// The merchant's decision on the refund a complaint asks for.
    func decideComplaintRefund(_ id: String, approve: Bool, reason: String?, images: [String]) async throws
    /// Uploads an image for an answer. - Returns: the provider's media id.
    func uploadComplaintImage(filename: String, bytes: [UInt8]) async throws -> String
    /// An image of a complaint, by the URL the provider gave.
    func complaintImage(at url: String) async throws -> (bytes: [UInt8], contentType: String?)
    /// Makes the provider send complaint notifications to `url` (sets it, or changes it).
    /// - Returns: whether it changed anything.
    func registerComplaintNotifyURL(_ url: String) async throws -> Bool
    /// A fingerprint of `snapshot` comparable with ``recentComplaints(from:to:)``'s.
    func fingerprint(_ snapshot: ComplaintSnapshot) -> String
}

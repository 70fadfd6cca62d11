import Cashier
import Foundation

/// Uploads: the merchant media upload (`/v3/merchant/media/upload`, images and PDFs other APIs
/// name by `media_id`) and the complaint image upload (`/v3/merchant-service/images/upload`,
/// the images a complaint's answer or a refused refund carries). Each is `multipart/form-data`
/// whose signature covers only the `meta` JSON.
extension WeChatPay.V3.Client {
    /// Uploads an image or PDF for the APIs that take a `media_id` (not for complaint answers,
    /// which take ``uploadComplaintImage(_:)``'s).
    /// - Parameter upload: a file checked for ``WeChatPay/V3/MediaUpload/Purpose/merchantMedia``.
    /// - Returns: the `media_id`.
    public func uploadMedia(_ upload: WeChatPay.V3.MediaUpload) async throws -> String {
        try await send(upload, expecting: .merchantMedia)
    }

    /// Uploads an image for a complaint's answer or a refused refund (JPG, BMP or PNG up to 2 MB).
    /// - Parameter upload: a file checked for ``WeChatPay/V3/MediaUpload/Purpose/complaintImage``.
    /// - Returns: the `media_id`.
    public func uploadComplaintImage(_ upload: WeChatPay.V3.MediaUpload) async throws -> String {
        try await send(upload, expecting: .complaintImage)
    }

    private func send(_ upload: WeChatPay.V3.MediaUpload, expecting purpose: WeChatPay.V3.MediaUpload.Purpose) async throws -> String {
        guard upload.purpose == purpose else {
            throw Self.refused("\(upload.filename) was checked for \(upload.purpose.path), not \(purpose.path): make it for this endpoint")
        }
        let form = upload.form()
        let response = try await exchange(
            "POST", purpose.path, body: Data(form.encoded()), signing: upload.meta, contentType: form.contentType)
        struct Answer: Decodable { let media_id: String }
        return try Self.decoded(Answer.self, response.body, "a media_id").media_id
    }
}

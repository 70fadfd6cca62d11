/// `POST /v1/complaints/{id}/responses`: the answer's words, images uploaded with
/// `POST /v1/complaints/{id}/images` (their media ids), and a link with its text.
struct ComplaintReplyBody: Decodable, Sendable {
    let text: String
    let images: [String]?
    /// An https page of yours about the complaint; with `link_text`.
    let link_url: String?
    let link_text: String?
}

/// `POST /v1/complaints/{id}/images`: an image for an answer, base64.
struct ComplaintImageBody: Decodable, Sendable {
    let filename: String
    /// The file, base64 (JPG, BMP or PNG of at most 2 MB).
    let data: String
}

/// `POST /v1/complaints/{id}/refund`: the decision on the refund a complaint asks for.
struct ComplaintRefundBody: Decodable, Sendable {
    /// `approve` (refunds now, through the ordinary refund of the payment) or `reject`.
    let decision: String
    /// How much to refund when approving (default: what the payer asked for).
    let amount: String?
    let amount_minor: WholeNumber?
    /// Why, when rejecting (the payer reads it).
    let reason: String?
    /// Evidence images when rejecting (media ids from `POST /v1/complaints/{id}/images`).
    let images: [String]?
}

import Cashier
import CashierHTTP
import Foundation

/// The complaint page's forms: the answer (multipart, with its images uploaded to the provider
/// first), completing, and the refund decision. Each goes back to the complaint's page saying
/// what happened.
extension Dashboard {
    func replyToComplaint(_ id: String, _ request: HTTPServerRequest) async -> HTTPServerResponse {
        let (fields, files) = Self.form(request)
        return await afterAction(back: complaintPage(id)) {
            var images: [String] = []
            for file in files {
                let uploaded = try await ledger.complaints.uploadImage(id, filename: file.name, bytes: file.bytes, caller: .platform)
                images.append(uploaded.media_id)
            }
            let link = fields["link_url"].flatMap { $0.isEmpty ? nil : $0 }
            let body = ComplaintReplyBody(
                text: fields["text"] ?? "", images: images, link_url: link, link_text: link == nil ? nil : fields["link_text"] ?? "")
            _ = try await ledger.complaints.respond(id, body, caller: .platform)
            return images.isEmpty ? "Answered." : "Answered, with \(images.count) image\(images.count == 1 ? "" : "s")."
        }
    }

    func completeComplaint(_ id: String) async -> HTTPServerResponse {
        await afterAction(back: complaintPage(id)) {
            _ = try await ledger.complaints.complete(id, caller: .platform)
            return "Marked handled."
        }
    }

    func decideComplaintRefund(_ id: String, _ request: HTTPServerRequest, actor: String) async -> HTTPServerResponse {
        let form = request.formFields
        let approve = form["decision"] == "approve"
        let amount = form["amount"].flatMap { $0.isEmpty ? nil : $0 }
        return await afterAction(back: complaintPage(id)) {
            let body = ComplaintRefundBody(
                decision: form["decision"] ?? "", amount: approve ? amount : nil, amount_minor: nil, reason: approve ? nil : form["reason"],
                images: nil)
            let decided = try await ledger.complaints.decideRefund(id, body, caller: .platform, actor: actor)
            return approve ? "Refunded \(amount ?? decided.requested_refund?.amount ?? "") and told the provider." : "Refund refused."
        }
    }

    private func complaintPage(_ id: String) -> String {
        "/dashboard/complaints/\(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
    }

    /// A form's fields and attached files: multipart (a form with files) or URL-encoded.
    static func form(_ request: HTTPServerRequest) -> (fields: [String: String], files: [(name: String, bytes: [UInt8])]) {
        guard let type = request.headers["Content-Type"], type.lowercased().hasPrefix("multipart/form-data"),
            let form = try? MultipartFormData(body: request.body, contentType: type)
        else { return (request.formFields, []) }
        let files = form.parts.compactMap { part -> (name: String, bytes: [UInt8])? in
            guard let name = part.filename, !name.isEmpty, !part.body.isEmpty else { return nil }
            return (name, part.body)
        }
        return (form.fields, files)
    }
}

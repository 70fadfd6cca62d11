import Cashier
import Foundation

extension WeChatPay.V3 {
    /// The merchant's answer to a complaint (`…/complaints-v2/{id}/response`): words, up to four
    /// images uploaded with ``Client/uploadComplaintImage(_:)``, and optionally a link (with the
    /// text the payer taps) or a mini program page. The first answer moves the complaint from
    /// `PENDING` to `PROCESSING`.
    ///
    /// ```swift
    /// let image = try await client.uploadComplaintImage(try .init(filename: "receipt.png", bytes: png, purpose: .complaintImage))
    /// try await client.respond(toComplaint: id, ComplaintResponse(content: "已为您退款", images: [image]))
    /// ```
    public struct ComplaintResponse: Sendable, Equatable {
        /// A link shown after the words: both the URL and its text, or neither.
        public struct Link: Sendable, Equatable {
            /// `jump_url`: https.
            public var url: String
            /// `jump_url_text`: what the payer taps.
            public var text: String

            /// - Parameters:
            ///   - url: an https URL (the merchant's page for the complaint).
            ///   - text: what the payer taps.
            public init(url: String, text: String) {
                self.url = url
                self.text = text
            }
        }

        /// A mini program page shown after the words (`mini_program_jump_info`).
        public struct MiniProgramLink: Sendable, Equatable {
            /// The mini program's appid.
            public var appID: String
            /// The page's path.
            public var path: String
            /// What the payer taps.
            public var text: String

            /// - Parameters:
            ///   - appID: the mini program's appid.
            ///   - path: the page's path.
            ///   - text: what the payer taps.
            public init(appID: String, path: String, text: String) {
                self.appID = appID
                self.path = path
                self.text = text
            }
        }

        /// `response_content`: at most ``contentLimit`` characters.
        public var content: String
        /// `response_images`: media ids from ``Client/uploadComplaintImage(_:)``, at most ``imageLimit``.
        public var images: [String]
        /// `jump_url` and `jump_url_text`.
        public var link: Link?
        /// `mini_program_jump_info`.
        public var miniProgram: MiniProgramLink?

        /// The most characters of an answer WeChat takes from a direct merchant (500 from a service provider).
        public static let contentLimit = 200
        /// The longest answer through the partner APIs.
        public static let partnerContentLimit = 500
        /// The most images an answer (or a refused refund) carries.
        public static let imageLimit = 4

        /// - Parameters:
        ///   - content: the answer's words.
        ///   - images: media ids of images uploaded for complaints.
        ///   - link: a link after the words.
        ///   - miniProgram: a mini program page after the words.
        public init(content: String, images: [String] = [], link: Link? = nil, miniProgram: MiniProgramLink? = nil) {
            self.content = content
            self.images = images
            self.link = link
            self.miniProgram = miniProgram
        }

        /// The request body, after the checks WeChat makes.
        /// - Parameters:
        ///   - mchID: `complainted_mchid`: the merchant complained about.
        ///   - partner: through the partner APIs (a longer answer is allowed).
        /// - Throws: `PaymentError.invalidRequest` saying what to fix.
        public func body(mchID: String, partner: Bool = false) throws -> [String: Any] {
            let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
            let limit = partner ? Self.partnerContentLimit : Self.contentLimit
            guard !text.isEmpty else { throw Self.refused("the answer's content is empty: say how the complaint is handled") }
            guard content.count <= limit else {
                throw Self.refused("the answer is \(content.count) characters; WeChat takes at most \(limit)")
            }
            try Self.check(images: images)
            var body: [String: Any] = ["complainted_mchid": mchID, "response_content": content]
            if !images.isEmpty { body["response_images"] = images }
            if let link {
                guard link.url.lowercased().hasPrefix("https://"), URL(string: link.url)?.host?.isEmpty == false else {
                    throw Self.refused("the link \(link.url.prefix(80)) is not an https URL (WeChat requires https)")
                }
                guard !link.text.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw Self.refused("a link needs its text (jump_url_text): what the payer taps")
                }
                body["jump_url"] = link.url
                body["jump_url_text"] = link.text
            }
            if let miniProgram {
                guard ![miniProgram.appID, miniProgram.path, miniProgram.text].contains(where: { $0.isEmpty }) else {
                    throw Self.refused("a mini program link needs its appid, path and text")
                }
                body["mini_program_jump_info"] = ["appid": miniProgram.appID, "path": miniProgram.path, "text": miniProgram.text]
            }
            return body
        }

        /// At most ``imageLimit`` media ids, none empty.
        static func check(images: [String]) throws {
            guard images.count <= imageLimit else {
                throw refused("\(images.count) images: WeChat takes at most \(imageLimit) with an answer")
            }
            guard !images.contains(where: { $0.isEmpty || $0.utf8.count > 512 }) else {
                throw refused("an image's media id is empty or too long: give the media_id the image upload answered")
            }
        }

        static func refused(_ message: String) -> PaymentError {
            PaymentError(.invalidRequest, provider: .wechatV3, message)
        }
    }

    /// The merchant's decision on a complaint that asks for money back (`problem_type` `REFUND`),
    /// sent with ``Client/updateRefundProgress(complaintID:_:)``. Approving promises a refund
    /// (made through the ordinary refund API, within `launchRefundDay` working days); the
    /// complaint is handled once it arrives. Refusing ends it, with the reason shown to the payer.
    public enum RefundDecision: Sendable, Equatable {
        /// `APPROVE`: the refund starts within `launchRefundDay` working days (0: today).
        case approve(launchRefundDay: Int? = nil, remark: String? = nil)
        /// `REJECT`: why, with up to four images as evidence (media ids from the complaint image upload).
        case reject(reason: String, images: [String] = [], remark: String? = nil)

        /// The request body, after the checks WeChat makes.
        /// - Throws: `PaymentError.invalidRequest` saying what to fix.
        public func body() throws -> [String: Any] {
            switch self {
            case .approve(let day, let remark):
                var body: [String: Any] = ["action": "APPROVE"]
                if let day {
                    guard (0...365).contains(day) else {
                        throw ComplaintResponse.refused("launch_refund_day \(day) is not a number of working days (0 is today)")
                    }
                    body["launch_refund_day"] = day
                }
                if let remark, !remark.isEmpty { body["remark"] = remark }
                return body
            case .reject(let reason, let images, let remark):
                guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw ComplaintResponse.refused("a refused refund needs its reason (reject_reason): the payer reads it")
                }
                guard reason.count <= ComplaintResponse.contentLimit else {
                    throw ComplaintResponse.refused("the reason is \(reason.count) characters; WeChat takes at most 200")
                }
                try ComplaintResponse.check(images: images)
                var body: [String: Any] = ["action": "REJECT", "reject_reason": reason]
                if !images.isEmpty { body["reject_media_list"] = images }
                if let remark, !remark.isEmpty { body["remark"] = remark }
                return body
            }
        }
    }
}

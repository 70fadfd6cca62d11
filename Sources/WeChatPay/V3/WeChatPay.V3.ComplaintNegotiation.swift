import Foundation

extension WeChatPay.V3 {
    /// One step of a complaint's conversation (`…/complaints-v2/{id}/negotiation-historys`): who
    /// did what, when, with what words and images.
    public struct ComplaintNegotiation: Sendable, Equatable, Decodable {
        /// What a step was (`operate_type`): about 25 values, of which these are the common ones.
        public struct OperateType: RawRepresentable, Hashable, Sendable, Decodable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The payer complained.
            public static let userCreateComplaint = OperateType(rawValue: "USER_CREATE_COMPLAINT")
            /// The payer complained again after it was handled (a repeat complaint).
            public static let userContinueComplaint = OperateType(rawValue: "USER_CONTINUE_COMPLAINT")
            /// The payer wrote.
            public static let userResponse = OperateType(rawValue: "USER_RESPONSE")
            /// WeChat wrote.
            public static let platformResponse = OperateType(rawValue: "PLATFORM_RESPONSE")
            /// The merchant answered.
            public static let merchantResponse = OperateType(rawValue: "MERCHANT_RESPONSE")
            /// The merchant said it is handled.
            public static let merchantConfirmComplete = OperateType(rawValue: "MERCHANT_CONFIRM_COMPLETE")
            /// The merchant agreed to the refund asked for.
            public static let merchantApproveRefund = OperateType(rawValue: "MERCHANT_APPROVE_REFUND")
            /// The merchant refused the refund (WeChat's own spelling: `RERUND`).
            public static let merchantRefuseRefund = OperateType(rawValue: "MERCHANT_REFUSE_RERUND")
            /// The payer withdrew the complaint.
            public static let userRevokeComplaint = OperateType(rawValue: "USER_REVOKE_COMPLAINT")
            /// Every trade of the complaint was refunded in full.
            public static let fullRefundedSystemMessage = OperateType(rawValue: "COMPLAINT_FULL_REFUNDED_SYSTEM_MESSAGE")
            /// The payer asked WeChat to step in.
            public static let userApplyPlatformService = OperateType(rawValue: "USER_APPLY_PLATFORM_SERVICE")
        }

        /// `log_id`.
        public let logID: String
        /// `operator`: who (`用户`, `商户`, `微信支付客服`…).
        public let operatorName: String
        /// `operate_time`, RFC 3339.
        public let operateTime: String
        /// `operate_type`.
        public let operateType: OperateType
        /// `operate_details`: the words of the step.
        public let details: String
        /// `image_list`: the step's images (URLs on the gateway, valid for an hour).
        public let imageURLs: [String]
        /// `complaint_media_list`: the step's files.
        public let media: [Complaint.Media]

        enum CodingKeys: String, CodingKey {
            case logID = "log_id"
            case operatorName = "operator"
            case operateTime = "operate_time"
            case operateType = "operate_type"
            case details = "operate_details"
            case imageURLs = "image_list"
            case media = "complaint_media_list"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            logID = try container.decode(String.self, forKey: .logID)
            operatorName = try container.decodeIfPresent(String.self, forKey: .operatorName) ?? ""
            operateTime = try container.decodeIfPresent(String.self, forKey: .operateTime) ?? ""
            operateType = try container.decode(OperateType.self, forKey: .operateType)
            details = try container.decodeIfPresent(String.self, forKey: .details) ?? ""
            imageURLs = try container.decodeIfPresent([String].self, forKey: .imageURLs) ?? []
            // Documented as one object; a list is taken too.
            if let one = try? container.decodeIfPresent(Complaint.Media.self, forKey: .media) {
                media = [one]
            } else {
                media = (try? container.decodeIfPresent([Complaint.Media].self, forKey: .media)) ?? []
            }
        }

        /// Every image URL of the step: ``imageURLs`` and the files of ``media``, each once.
        public var allImageURLs: [String] {
            var seen = Set<String>()
            return (imageURLs + media.flatMap(\.mediaURLs)).filter { seen.insert($0).inserted }
        }
    }

    /// One page of a complaint's conversation, oldest first.
    public struct ComplaintNegotiationPage: Sendable, Equatable, Decodable {
        /// The steps on this page.
        public let entries: [ComplaintNegotiation]
        /// The page size asked for.
        public let limit: Int
        /// Where the page starts.
        public let offset: Int
        /// How many steps there are in all.
        public let totalCount: Int?

        enum CodingKeys: String, CodingKey {
            case entries = "data"
            case limit, offset
            case totalCount = "total_count"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            entries = try container.decodeIfPresent([ComplaintNegotiation].self, forKey: .entries) ?? []
            limit = try container.decodeIfPresent(Int.self, forKey: .limit) ?? 0
            offset = try container.decodeIfPresent(Int.self, forKey: .offset) ?? 0
            totalCount = try container.decodeIfPresent(Int.self, forKey: .totalCount)
        }
    }
}
